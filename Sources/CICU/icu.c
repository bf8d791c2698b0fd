#include "cicu.h"
#include <unicode/ucol.h>
#include <unicode/upluralrules.h>
#include <unicode/ulocdata.h>
#include <unicode/uset.h>

void *rs_plural_rules_open(const char *locale) {
    UErrorCode status = U_ZERO_ERROR;
    UPluralRules *rules = uplrules_open(locale, &status);
    if (U_FAILURE(status)) { if (rules) uplrules_close(rules); return NULL; }
    return rules;
}

int32_t rs_plural_rules_select(const void *rules, double number, uint16_t *keyword, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    int32_t length = uplrules_select((const UPluralRules *)rules, number, (UChar *)keyword, capacity, &status);
    return U_FAILURE(status) ? -1 : length;
}

void rs_plural_rules_close(void *rules) { uplrules_close((UPluralRules *)rules); }

void *rs_collator_open(const char *locale, int primary_only) {
    UErrorCode status = U_ZERO_ERROR;
    UCollator *collator = ucol_open(locale, &status);
    if (U_FAILURE(status)) { if (collator) ucol_close(collator); return NULL; }
    if (primary_only) ucol_setAttribute(collator, UCOL_STRENGTH, UCOL_PRIMARY, &status);
    return collator;
}

int32_t rs_collator_sort_key(const void *collator, const uint16_t *text, int32_t length, uint8_t *key, int32_t capacity) {
    return ucol_getSortKey((const UCollator *)collator, (const UChar *)text, length, key, capacity);
}

void rs_collator_close(void *collator) { ucol_close((UCollator *)collator); }

void *rs_letters_open(const char *locale) {
    UErrorCode status = U_ZERO_ERROR;
    ULocaleData *data = ulocdata_open(locale, &status);
    if (U_FAILURE(status)) { if (data) ulocdata_close(data); return NULL; }
    USet *letters = ulocdata_getExemplarSet(data, NULL, USET_ADD_CASE_MAPPINGS, ULOCDATA_ES_STANDARD, &status);
    ulocdata_close(data);
    if (U_FAILURE(status)) { if (letters) uset_close(letters); return NULL; }
    return letters;
}

int rs_letters_contain(const void *letters, uint32_t code_point) { return uset_contains((const USet *)letters, (UChar32)code_point); }

void rs_letters_close(void *letters) { uset_close((USet *)letters); }
