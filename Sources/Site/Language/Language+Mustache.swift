import Mustache

/// The language's fixed words as templates name them: `{{t.allBooks}}`; a word with plural forms
/// as `{{t.searchMatches.one}}`, `{{t.searchMatches.other}}`. `{{lang}}` is the language's tag.
struct StringsView: MustacheParent, Sendable {
    let language: Language

    func child(named name: String) -> Any? {
        if let value = language.strings[name] { return Text(value) }
        return language.strings[name + ".other"] != nil ? PluralForms(language: language, key: name) : nil
    }
}

/// The plural forms of one key, by CLDR category.
struct PluralForms: MustacheParent, Sendable {
    let language: Language
    let key: String

    func child(named name: String) -> Any? {
        language.strings[key + "." + name].map(Text.init)
    }
}

/// A page with the language: `t` and `lang` answer here, every other name the page's own.
struct Localized<Page: MustacheParent>: MustacheParent {
    let page: Page
    let strings: StringsView

    func child(named name: String) -> Any? {
        switch name {
        case "t": return strings
        case "lang": return Text(strings.language.tag)
        default: return page.child(named: name)
        }
    }
}
