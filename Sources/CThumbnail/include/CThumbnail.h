#ifndef C_THUMBNAIL_H
#define C_THUMBNAIL_H
#include <stddef.h>

/* libvips behind calls that Swift can make (its operations are variadic C functions). */

/* Once, before anything else (every call below makes it): libvips opened (it is not linked: a run
   that makes no image never loads it), its caches off, one thread a call (the callers run several
   calls at once), and only the JPEG, PNG, GIF and WebP loaders. 0 on success. */
int rt_start(void);

/* Why rt_start failed (libvips missing, or too old), or NULL when it did not. */
const char *rt_start_error(void);

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
   0: made (out[0..count-1] filled); -1: the image cannot be read (error filled); -2: too many pixels;
   -3: libvips could not be opened (error filled: the image is not at fault). */
int rt_thumbnails(const void *bytes, size_t length, int count, const int *widths, const int *heights,
                  long long max_pixels, rt_image *out, char *error, size_t error_length);

/* The size the header of the image in the file at `path` claims, nothing decoded. 0 on success. */
int rt_image_size(const char *path, int *width, int *height);

/* A photo-like JPEG of that size (blurred noise and gradients), the same bytes for the same seed:
   the sample server's covers of real sizes. 0 on success. */
int rt_sample_jpeg(int width, int height, int seed, int quality, rt_image *out);

/* A book's share card (a link preview's image): 1200 x 630, its cover (or, when cover is NULL, a
   typographic stand-in: a coloured panel with the title set in it) on the left, the title and the
   author set on the right, and the site's title small at the bottom. Text is plain (never markup);
   NULL or empty author: no author line. JPEG, the same bytes for the same inputs.
   0: made; -1: the cover cannot be read (error filled; the caller draws the stand-in instead by
   calling again with NULL); -2: the cover claims more than max_pixels. */
int rt_book_card(const void *cover, size_t cover_length, const char *title, const char *author,
                 const char *site_title, long long max_pixels, rt_image *out, char *error, size_t error_length);

/* A shelf's, an author's or the whole library's share card: 1200 x 630, the name large at the top, a
   line under it (e.g. "248 books"), and a row of up to 6 covers below, side by side, each scaled to
   the same height; a NULL entry of covers (a book with no cover), or one that cannot be read or
   claims more than max_pixels, is drawn as a plain coloured panel of a book's proportions. covers
   and lengths hold count entries (beyond 6 are not drawn); count 0: the text alone. JPEG, the same
   bytes for the same inputs. 0: made; -1: error filled. */
int rt_row_card(const char *name, const char *line, const char *site_title, int count,
                const void *const *covers, const size_t *lengths, long long max_pixels,
                rt_image *out, char *error, size_t error_length);

/* The web app's icon: size x size, the catalog's first letter (plain text, one character) in white
   on `colour` (0-255 each), set within the middle three fifths so that a launcher's mask of any
   shape keeps it whole. PNG, the same bytes for the same inputs. 0: made; -1: error filled. */
int rt_app_icon(const char *letter, int size, const double colour[3], rt_image *out, char *error, size_t error_length);

/* The calling thread yields the cores to the process's other threads (nice 10; Linux only). */
void rt_lower_thread_priority(void);

/* What rt_thumbnails, rt_sample_jpeg, rt_book_card and rt_row_card made. */
void rt_free(void *data);

#endif
