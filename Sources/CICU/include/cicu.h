// ICU's plural rules and collation, from Debian's libicu-dev, behind plain C types: Foundation
// brings its own copy of ICU's headers into Swift, and the two copies' types would clash there.
#ifndef CICU_H
#define CICU_H
#include <stdint.h>

/// Opens the CLDR plural rules of `locale` ("de", "pt_BR"); NULL when ICU cannot.
void *rs_plural_rules_open(const char *locale);
/// Writes the category of `number` ("one", "few", "other"…) into `keyword`; its length, or -1.
int32_t rs_plural_rules_select(const void *rules, double number, uint16_t *keyword, int32_t capacity);
void rs_plural_rules_close(void *rules);

/// Opens the collation of `locale`; at its first strength only (letters, not accents or case) when `primary_only`.
void *rs_collator_open(const char *locale, int primary_only);
/// Writes the sort key of `text` (UTF-16) into `key`; the key's length with its closing zero (more than `capacity`: call again).
int32_t rs_collator_sort_key(const void *collator, const uint16_t *text, int32_t length, uint8_t *key, int32_t capacity);
void rs_collator_close(void *collator);

/// Opens the letters a language writes with (CLDR's exemplar characters, both cases); NULL when ICU has none.
void *rs_letters_open(const char *locale);
/// Whether `code_point` is one of them.
int rs_letters_contain(const void *letters, uint32_t code_point);
void rs_letters_close(void *letters);

#endif
