#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU; its headers would then pull in the system's ICU headers, which
   clash with the copy Foundation carries. We never use the converter they describe. */
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

/* xmlFree is a global function pointer: a mutable global to Swift. */
static inline void reader_xml_free(void *pointer) { xmlFree(pointer); }
