#ifndef RT_ORC_GUARD_H
#define RT_ORC_GUARD_H
#include "vips_functions.h"

/* libvips 8.14 compiles vector code with liborc when it builds a resize (reducev) or a
   convolution, and frees that code when the last image of the pipeline is let go. liborc before
   0.4.34 (Debian 12 has 0.4.33) shares its code memory between threads without a lock: two
   threads making thumbnails at once crashed now and then, in orc_code_allocate_codemem. liborc
   0.4.34 added the lock (its commit e48fa54); until every machine has it, these files take one
   of their own. Every call that builds an operation which may resize, and every image let go,
   holds it; decoding and encoding, where the time goes, run without it, side by side. */
void rt_orc_lock(void);
void rt_orc_unlock(void);

/* Lets an image go under the lock: the last reference to a pipeline frees its vector code. */
void rt_release(VipsImage *image);

#endif
