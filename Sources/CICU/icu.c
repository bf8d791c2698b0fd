#include "cicu.h"
#include <stddef.h>

#if __has_include(<unicode/ucol.h>)
#include <dlfcn.h>
#include <pthread.h>
#include <unicode/ucol.h>
#include <unicode/ulocdata.h>
#include <unicode/upluralrules.h>
#include <unicode/uset.h>
#include <unicode/uvernum.h>

// ICU is opened when a language first needs it, not linked: linked, its libraries cost every run
// about 2 MB of memory, and English pages never call it. Its functions carry the version in their
// names ("uplrules_open_72"); the headers' own renaming macros give those names.
#define RS_NAME2(x) #x
#define RS_NAME(x) RS_NAME2(x)

static struct {
    __typeof__(uplrules_open) *plural_rules_open;
    __typeof__(uplrules_select) *plural_rules_select;
    __typeof__(uplrules_close) *plural_rules_close;
    __typeof__(ucol_open) *collator_open;
    __typeof__(ucol_setAttribute) *collator_set_attribute;
    __typeof__(ucol_getSortKey) *collator_sort_key;
    __typeof__(ucol_close) *collator_close;
    __typeof__(ulocdata_open) *locale_data_open;
    __typeof__(ulocdata_getExemplarSet) *locale_data_letters;
    __typeof__(ulocdata_close) *locale_data_close;
    __typeof__(uset_contains) *set_contains;
    __typeof__(uset_close) *set_close;
    int loaded;
} icu;

static pthread_once_t icu_once = PTHREAD_ONCE_INIT;

static void load_icu(void) {
    const char *names[] = {"libicui18n.so." U_ICU_VERSION_SHORT, "libicui18n.so",
                           "libicui18n." U_ICU_VERSION_SHORT ".dylib", "libicui18n.dylib"};
    void *library = NULL;
    for (size_t i = 0; !library && i < sizeof names / sizeof names[0]; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
#define RS_LOAD(field, function) if (!(icu.field = (__typeof__(icu.field))dlsym(library, RS_NAME(function)))) return;
    RS_LOAD(plural_rules_open, uplrules_open)
    RS_LOAD(plural_rules_select, uplrules_select)
    RS_LOAD(plural_rules_close, uplrules_close)
    RS_LOAD(collator_open, ucol_open)
    RS_LOAD(collator_set_attribute, ucol_setAttribute)
    RS_LOAD(collator_sort_key, ucol_getSortKey)
    RS_LOAD(collator_close, ucol_close)
    RS_LOAD(locale_data_open, ulocdata_open)
    RS_LOAD(locale_data_letters, ulocdata_getExemplarSet)
    RS_LOAD(locale_data_close, ulocdata_close)
    RS_LOAD(set_contains, uset_contains)
    RS_LOAD(set_close, uset_close)
#undef RS_LOAD
    icu.loaded = 1;
}

static int have_icu(void) {
    pthread_once(&icu_once, load_icu);
    return icu.loaded;
}

void *rs_plural_rules_open(const char *locale) {
    if (!have_icu()) return NULL;
    UErrorCode status = U_ZERO_ERROR;
    UPluralRules *rules = icu.plural_rules_open(locale, &status);
    if (U_FAILURE(status)) { if (rules) icu.plural_rules_close(rules); return NULL; }
    return rules;
}

int32_t rs_plural_rules_select(const void *rules, double number, uint16_t *keyword, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    int32_t length = icu.plural_rules_select((const UPluralRules *)rules, number, (UChar *)keyword, capacity, &status);
    return U_FAILURE(status) ? -1 : length;
}

void rs_plural_rules_close(void *rules) { icu.plural_rules_close((UPluralRules *)rules); }

void *rs_collator_open(const char *locale, int primary_only) {
    if (!have_icu()) return NULL;
    UErrorCode status = U_ZERO_ERROR;
    UCollator *collator = icu.collator_open(locale, &status);
    if (U_FAILURE(status)) { if (collator) icu.collator_close(collator); return NULL; }
    if (primary_only) icu.collator_set_attribute(collator, UCOL_STRENGTH, UCOL_PRIMARY, &status);
    return collator;
}

int32_t rs_collator_sort_key(const void *collator, const uint16_t *text, int32_t length, uint8_t *key, int32_t capacity) {
    return icu.collator_sort_key((const UCollator *)collator, (const UChar *)text, length, key, capacity);
}

void rs_collator_close(void *collator) { icu.collator_close((UCollator *)collator); }

void *rs_letters_open(const char *locale) {
    if (!have_icu()) return NULL;
    UErrorCode status = U_ZERO_ERROR;
    ULocaleData *data = icu.locale_data_open(locale, &status);
    if (U_FAILURE(status)) { if (data) icu.locale_data_close(data); return NULL; }
    USet *letters = icu.locale_data_letters(data, NULL, USET_ADD_CASE_MAPPINGS, ULOCDATA_ES_STANDARD, &status);
    icu.locale_data_close(data);
    if (U_FAILURE(status)) { if (letters) icu.set_close(letters); return NULL; }
    return letters;
}

int rs_letters_contain(const void *letters, uint32_t code_point) { return icu.set_contains((const USet *)letters, (UChar32)code_point); }

void rs_letters_close(void *letters) { icu.set_close((USet *)letters); }

#else
// Built without ICU's headers (macOS without Homebrew's icu4c on the include path): no plural rules,
// collation or letters; pages then use English's plural rule and the folded order.
void *rs_plural_rules_open(const char *locale) { (void)locale; return NULL; }
int32_t rs_plural_rules_select(const void *rules, double number, uint16_t *keyword, int32_t capacity) {
    (void)rules; (void)number; (void)keyword; (void)capacity; return -1;
}
void rs_plural_rules_close(void *rules) { (void)rules; }
void *rs_collator_open(const char *locale, int primary_only) { (void)locale; (void)primary_only; return NULL; }
int32_t rs_collator_sort_key(const void *collator, const uint16_t *text, int32_t length, uint8_t *key, int32_t capacity) {
    (void)collator; (void)text; (void)length; (void)key; (void)capacity; return 0;
}
void rs_collator_close(void *collator) { (void)collator; }
void *rs_letters_open(const char *locale) { (void)locale; return NULL; }
int rs_letters_contain(const void *letters, uint32_t code_point) { (void)letters; (void)code_point; return 0; }
void rs_letters_close(void *letters) { (void)letters; }
#endif
