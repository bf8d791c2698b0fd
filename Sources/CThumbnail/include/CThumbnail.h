#ifndef C_THUMBNAIL_H
#define C_THUMBNAIL_H
#include <stddef.h>

/* libvips behind three calls that Swift can make (its operations are variadic C functions). */

/* Once, before anything else: libvips' caches off, one thread a call (the callers run several
   calls at once), and only the JPEG, PNG, GIF and WebP loaders. 0 on success. */
int rt_start(void);

/* One image made from another. */
typedef struct {
    void *data;      /* free with rt_free */
    size_t length;
    int width;
    int height;
    int is_png;      /* PNG where the cover has transparency, JPEG otherwise */
} rt_image;

/* Thumbnails of the image in `bytes`, each filling box i (widths[i] x heights[i]): scaled so that both
   sides reach the box, never up, its proportions kept; EXIF rotation honoured; CMYK and ICC profiles
   made sRGB; an animated GIF's first frame. An image whose header claims more than `max_pixels` is
   refused before it is decoded.
   0: made (out[0..count-1] filled); -1: the image cannot be read (error filled); -2: too many pixels. */
int rt_thumbnails(const void *bytes, size_t length, int count, const int *widths, const int *heights,
                  long long max_pixels, rt_image *out, char *error, size_t error_length);

/* The size the header of the image in the file at `path` claims, nothing decoded. 0 on success. */
int rt_image_size(const char *path, int *width, int *height);

/* A photo-like JPEG of that size (blurred noise and gradients), the same bytes for the same seed:
   the sample server's covers of real sizes. 0 on success. */
int rt_sample_jpeg(int width, int height, int seed, int quality, rt_image *out);

/* The calling thread yields the cores to the process's other threads (nice 10; Linux only). */
void rt_lower_thread_priority(void);

/* What rt_thumbnails and rt_sample_jpeg made. */
void rt_free(void *data);

#endif
