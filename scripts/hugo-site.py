# scripts/hugo-site.py LIBRARY.json SITE: a Hugo site with the pages reader-snapshot renders from that
# library (`render --format html,markdown`), made as a Hugo user would make it: a page per book, in
# HTML and in Markdown (a Hugo output format), the notes through Goldmark; shelves, authors and years
# as taxonomies, so that each of their pages lists its books without scanning the others (a term's
# .Pages), in HTML and Markdown too; the list of all books (the books section), the authors' index
# and the home page, each writing what ours writes on it (the same head, cards, facts and JSON-LD).
# For measurement only: make bench renders both, side by side. Ours writes more besides (stats, the
# search and lookup indexes, the offline list), so the comparison leans Hugo's way.
import json, os, re, sys, shutil
library = json.load(open(sys.argv[1]))
site = sys.argv[2]
shutil.rmtree(site, ignore_errors=True)
def slug(book):
    words = re.findall(r"[a-z0-9]+", (book.get("title") or "").lower())
    return f"{book['id']}-" + "-".join(words[:8]) if words else str(book["id"])
def q(text):
    return json.dumps(text or "", ensure_ascii=False)
def q_list(values):
    return json.dumps(values, ensure_ascii=False)
shelves_of = {}
for shelf in library["shelves"]:
    for i in shelf["book_ids"]:
        shelves_of.setdefault(i, []).append(shelf["name"])
def thumbnail(cover, width):
    for t in cover.get("thumbnails") or []:
        if t["path"].rsplit(".", 1)[0].endswith(f"-{width}"):
            return t["path"]
    return cover.get("path") or ""
def surname_first(author):
    words = (author or "").split()
    return (words[-1] + ", " + " ".join(words[:-1])).lower() if len(words) > 1 else (author or "").lower()
os.makedirs(f"{site}/content/books")
for book in library["books"]:
    shelves = shelves_of.get(book["id"], [])
    note = (book.get("note") or {}).get("markdown") or ""
    cover = book.get("cover") or {}
    added = (book.get("created_at") or "")[:10]
    with open(f"{site}/content/books/{slug(book)}.md", "w") as f:
        f.write("---\n")
        f.write(f"id: {book['id']}\ntitle: {q(book.get('title'))}\nauthor: {q(book.get('author'))}\nisbn: {q(book.get('isbn'))}\n")
        f.write(f"shelf: {q(shelves[0] if shelves else '')}\nadded: {q(added)}\n")
        # What a card and a page show of the book, as ours has it: the sort keys, the notes mark,
        # whether the details came, and the cover with its thumbnails and size.
        f.write(f"sortTitle: {q((book.get('title') or '').lower())}\nsortAuthor: {q(surname_first(book.get('author')))}\n")
        f.write(f"sortShelf: {q((shelves[0] if shelves else '').lower())}\nhasNote: {'true' if note else 'false'}\n")
        f.write(f"complete: {'true' if book.get('complete', True) else 'false'}\n")
        if cover.get("path"):
            f.write(f"cover: {q(cover['path'])}\ncoverList: {q(thumbnail(cover, 64))}\ncoverList2x: {q(thumbnail(cover, 128))}\n")
            f.write(f"coverPage: {q(thumbnail(cover, 192))}\ncoverPage2x: {q(thumbnail(cover, 384))}\n")
            f.write(f"coverWidth: {cover.get('width') or 0}\ncoverHeight: {cover.get('height') or 0}\n")
        authors = [book["author"]] if book.get("author") else []
        years = [added[:4]] if added else []
        f.write(f"shelves: {q_list(shelves)}\nauthors: {q_list(authors)}\nyears: {q_list(years)}\n")
        f.write("---\n" + note)
open(f"{site}/content/books/_index.md", "w").write("---\ntitle: \"All books\"\n---\n")
# Relative links and .html files, as ours writes them: a catalog that opens from any folder, any
# host path or a phone's files, which is how a Hugo user making this catalog would set it up.
open(f"{site}/config.toml", "w").write('''baseURL = "https://books.example.org/"
title = "Library"
relativeURLs = true
uglyURLs = true
disableKinds = ["RSS", "sitemap", "404", "robotsTXT"]
[taxonomies]
shelf = "shelves"
author = "authors"
year = "years"
[outputFormats.MD]
mediaType = "text/markdown"
baseName = "index"
isPlainText = true
[outputs]
page = ["HTML", "MD"]
term = ["HTML", "MD"]
taxonomy = ["HTML", "MD"]
section = ["HTML"]
home = ["HTML"]
[markup.goldmark.renderer]
unsafe = false
''')
os.makedirs(f"{site}/layouts/_default")
os.makedirs(f"{site}/layouts/partials")
def layout(path, text):
    open(f"{site}/layouts/{path}", "w").write(text)
# The templates write what ours write (Templates/html/layout, book and partials/book-list, and the
# Markdown pages): the same head, header, footer and cards, the same facts on a book's page and the
# same JSON-LD, so that what is compared is the work, not how much each side writes. Where Hugo has
# two ways to the same bytes, the faster: a book's shelf and author linked by their names (urlize),
# not by .GetTerms (half of a book page's time), and each book's card made once for all the lists
# it is on (partialCached).
layout("_default/baseof.html", '''<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Hugo {{ hugo.Version }}">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>{{ block "title" . }}{{ .Site.Title }}{{ end }}</title>
<link rel="stylesheet" href="{{ "assets/style.css" | relURL }}">
<link rel="icon" type="image/png" href="{{ "assets/icons/icon-192.png" | relURL }}">
<link rel="alternate" type="application/atom+xml" title="Recently added" href="{{ "feed.xml" | relURL }}">
<link rel="related" type="application/atom+xml;profile=opds-catalog;kind=navigation" title="The catalog, for e-reader apps (OPDS)" href="{{ "opds/index.xml" | relURL }}">
<link rel="related" type="application/opds+json" title="The catalog, for e-reader apps (OPDS 2.0)" href="{{ "opds/index.json" | relURL }}">
{{ block "head" . }}{{ end }}
</head>
<body>
<header class="site-header">
  <a class="site-title" href="{{ "index.html" | relURL }}">{{ .Site.Title }}</a>
  <nav aria-label="Sections">
    <a href="{{ "index.html" | relURL }}">Shelves</a>
    <a href="{{ "books.html" | relURL }}">All books</a>
    <a href="{{ "authors.html" | relURL }}">Authors</a>
    <a href="{{ "stats.html" | relURL }}">Stats</a>
    <a href="{{ "lookup.html" | relURL }}">Look up</a>
    <a href="{{ "changes.html" | relURL }}">Changes</a>
  </nav>
</header>
<main id="content">
{{ block "main" . }}{{ end }}
</main>
<footer class="site-footer">
  <p id="offline" class="offline" data-root="{{ "" | relURL }}" data-kept="Kept for offline: {books}, {size} · snapshot of {date}." data-keeping="Keeping for offline: {books} so far · snapshot of {date}…" data-free="Free this space"
     data-everything="Keep every book" data-freed="The offline copy is gone: pages come from the host again." data-ready="The snapshot of {date} is kept too: it shows from the next visit." data-books-zero="" data-books-one="{count} book"
     data-books-two="" data-books-few="" data-books-many="" data-books-other="{count} books" hidden></p>
  <p>A snapshot with Hugo.</p>
</footer>
<script src="{{ "assets/offline.js" | relURL }}" defer></script>
</body>
</html>
''')
layout("_default/single.html", '''{{ define "title" }}{{ .Title }} · {{ .Site.Title }}{{ end }}
{{ define "head" }}<script type="application/ld+json">{{ dict "@context" "https://schema.org" "@type" "Book" "author" (dict "@type" "Person" "name" .Params.author) "dateCreated" .Params.added "image" .Params.cover "isbn" .Params.isbn "name" .Title | jsonify | safeJS }}</script>
{{ end }}
{{ define "main" }}
<nav class="breadcrumb" aria-label="Breadcrumb"><a href="{{ "index.html" | relURL }}">Shelves</a> › {{ with .Params.shelf }}<a href="{{ printf "shelves/%s.html" (urlize .) | relURL }}" dir="auto">{{ . }}</a>{{ else }}<a href="{{ "books.html" | relURL }}">All books</a>{{ end }} › <bdi>{{ .Title }}</bdi></nav>
<article class="book">
  <div class="book-cover">
    {{ with .Params.cover }}<a href="{{ . | relURL }}" title="The cover, full size"><img class="cover large" src="{{ $.Params.coverPage | relURL }}" srcset="{{ $.Params.coverPage | relURL }} 1x, {{ $.Params.coverPage2x | relURL }} 2x" alt="Cover of {{ $.Title }}" width="{{ $.Params.coverWidth }}" height="{{ $.Params.coverHeight }}"></a>{{ else }}<div class="cover large placeholder" role="img" aria-label="No cover" dir="auto">{{ .Title }}</div>{{ end }}
  </div>
  <div class="book-details">
    <h1 dir="auto">{{ .Title }}</h1>
    {{ with .Params.author }}<p class="book-author">by <bdi><a href="{{ printf "authors/%s.html" (urlize .) | relURL }}">{{ . }}</a></bdi></p>{{ end }}
    <dl class="facts">
      <dt>ISBN</dt><dd>{{ with .Params.isbn }}{{ . }}{{ else }}—{{ end }}</dd>
      <dt>Shelf</dt><dd>{{ with .Params.shelf }}<a href="{{ printf "shelves/%s.html" (urlize .) | relURL }}" dir="auto">{{ . }}</a>{{ else }}Not known{{ end }}</dd>
      {{ with .Params.added }}<dt>Added</dt><dd>{{ . }}</dd>{{ end }}
    </dl>
    {{ if not .Params.complete }}<p class="warning">The server could not give this book's details.</p>{{ end }}
  </div>
</article>
<section class="note" aria-labelledby="note-heading">
  <h2 id="note-heading">Notes</h2>
  {{ with .Content }}<div class="note-body" dir="auto">
{{ . }}
  </div>{{ else }}<p class="empty">No notes.</p>{{ end }}
</section>
{{ end }}
''')
layout("_default/single.md", '''---
id: {{ .Params.id }}
title: {{ .Title | jsonify }}
author: {{ .Params.author | jsonify }}
isbn: {{ .Params.isbn | jsonify }}
shelf: {{ .Params.shelf | jsonify }}
added: {{ .Params.added }}
cover: {{ .Params.cover | jsonify }}
---

# {{ .Title }}
{{ with .Params.author }}
by [{{ . }}]({{ printf "authors/%s.md" (urlize .) | relURL }})
{{ end }}{{ with .Params.cover }}
![Cover of {{ $.Title }}]({{ . | relURL }})
{{ end }}{{ with .Params.shelf }}
Shelf: [{{ . }}]({{ printf "shelves/%s.md" (urlize .) | relURL }})
{{ end }}
## Notes

{{ with .RawContent }}{{ . }}{{ else }}No notes.{{ end }}
''')
# A book's card in every list, as ours (partials/book-list).
layout("partials/book-card.html", '''  <li class="book-card" data-id="{{ .Params.id }}" data-title="{{ .Params.sortTitle }}" data-author="{{ .Params.sortAuthor }}" data-shelf="{{ .Params.sortShelf }}" data-added="{{ .Params.added }}">
    <a href="{{ .RelPermalink }}" class="book-link">
      {{ with .Params.cover }}<img class="cover" src="{{ $.Params.coverList | relURL }}" srcset="{{ $.Params.coverList | relURL }} 1x, {{ $.Params.coverList2x | relURL }} 2x" alt="Cover of {{ $.Title }}" width="{{ $.Params.coverWidth }}" height="{{ $.Params.coverHeight }}" loading="lazy" decoding="async">{{ else }}<span class="cover placeholder" aria-hidden="true" dir="auto">{{ .Title }}</span>{{ end }}
      <span class="book-text">
        <span class="book-title" dir="auto">{{ .Title }}</span>
        {{ with .Params.author }}<span class="book-author" dir="auto">{{ . }}</span>{{ end }}
        <span class="book-meta">{{ with .Params.shelf }}<bdi>{{ . }}</bdi>{{ else }}No shelf{{ end }}{{ if .Params.hasNote }} · notes{{ end }}{{ if not .Params.complete }} · <span class="warning">details missing</span>{{ end }}</span>
      </span>
    </a>
  </li>
''')
# A shelf's, an author's or a year's page: the term's own pages, by title.
layout("_default/term.html", '''{{ define "title" }}{{ .Title }} · {{ .Site.Title }}{{ end }}
{{ define "main" }}<nav class="breadcrumb" aria-label="Breadcrumb"><a href="{{ "index.html" | relURL }}">Shelves</a> › <bdi>{{ .Title }}</bdi></nav>
<h1 dir="auto">{{ .Title }}</h1>
<p class="totals">{{ len .Pages }} books</p>
<ul class="book-list">
{{ range .Pages.ByTitle }}{{ partialCached "book-card.html" . .RelPermalink }}{{ end }}</ul>{{ end }}
''')
layout("_default/term.md", '''---
name: {{ .Title | jsonify }}
books: {{ len .Pages }}
---

# {{ .Title }}

[All shelves]({{ "index.md" | relURL }})
{{ range .Pages.ByTitle }}
- [{{ .Title }}]({{ with .OutputFormats.Get "md" }}{{ .RelPermalink }}{{ end }}){{ with .Params.author }} by {{ . }}{{ end }}{{ end }}
''')
# A year's page: its books in a short list, as ours.
os.makedirs(f"{site}/layouts/years")
layout("years/term.html", '''{{ define "title" }}{{ .Title }} · {{ .Site.Title }}{{ end }}
{{ define "main" }}<nav class="breadcrumb" aria-label="Breadcrumb"><a href="{{ "stats.html" | relURL }}">Stats</a> › {{ .Title }}</nav>
<h1>Added in {{ .Title }}</h1>
<p class="totals">{{ len .Pages }} books, newest first.</p>
<ol class="year-books">
{{ range .Pages.ByTitle }}  <li><a href="{{ .RelPermalink }}" dir="auto">{{ .Title }}</a>{{ with .Params.author }} <span class="book-author" dir="auto">{{ . }}</span>{{ end }}{{ with .Params.added }} <time class="count" datetime="{{ . }}">{{ . }}</time>{{ end }}</li>
{{ end }}</ol>{{ end }}
''')
# The authors' (shelves', years') index: each term with its count.
layout("_default/taxonomy.html", '''{{ define "title" }}{{ .Title }} · {{ .Site.Title }}{{ end }}
{{ define "main" }}<h1>{{ .Title }}</h1><ul>{{ range .Data.Terms.Alphabetical }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> {{ .Count }}</li>{{ end }}</ul>{{ end }}
''')
layout("_default/taxonomy.md", '''# {{ .Title }}
{{ range .Data.Terms.Alphabetical }}
- [{{ .Page.Title }}]({{ .Page.RelPermalink }}) {{ .Count }}{{ end }}
''')
# The list of all books.
layout("_default/list.html", '''{{ define "title" }}{{ .Title }} · {{ .Site.Title }}{{ end }}
{{ define "main" }}<h1>{{ .Title }}</h1>
<ul class="book-list">
{{ range .Pages.ByTitle }}{{ partialCached "book-card.html" . .RelPermalink }}{{ end }}</ul>{{ end }}
''')
layout("index.html", '''{{ define "main" }}<h1>{{ .Site.Title }}</h1><ul>{{ range .Site.Taxonomies.shelves.Alphabetical }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> {{ .Count }}</li>{{ end }}</ul>{{ end }}
''')
print("books", len(library["books"]), "shelves", len(library["shelves"]))
