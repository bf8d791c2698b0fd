/* Share cards: the 1200 x 630 images a link preview shows (Open Graph's size), of a book, or of a
   shelf, an author or the whole library, drawn with libvips. Everything that decides a pixel is fixed
   here (the fonts, by file; the resolution; the colours; the sizes; every step of fitting the text),
   so the same inputs give the same bytes, run after run. */

#include "CThumbnail.h"
#include "vips_functions.h"
#include "orc_guard.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum {
    CARD_WIDTH = 1200,
    CARD_HEIGHT = 630,
    DPI = 72,                 /* at 72 dpi a font's size in points is its size in pixels */
    SIDE = 64,                /* the card's left and right margins */
    TOP = 50,                 /* the top of the cover's box, and of the card's content */
    BOTTOM_LINE = 580,        /* where the site's title and a book's cover end */
    CONTENT_BOTTOM = 540,     /* the content above the site's title ends here */
    COVER_BOX_WIDTH = 424,
    COVER_BOX_HEIGHT = 530,
    STAND_IN_WIDTH = 350,     /* a cover's proportions, 2:3 */
    STAND_IN_HEIGHT = 525,
    COLUMN_GAP = 64,          /* between the cover and the text */
    BAR_WIDTH = 56,           /* the coloured bar above a title */
    BAR_HEIGHT = 6,
    ROW_GAP = 28,             /* between the covers of a row */
    ROW_LARGEST = 6,
    ROW_TALLEST = 330,
    LONGEST_TEXT = 300        /* characters of a server's string kept: a card shows far fewer */
};

/* The fonts by file, so that the card does not depend on which fonts fontconfig prefers here (see
   add_fonts). */
static const char *const REGULAR_FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
static const char *const BOLD_FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

/* A warm light paper with near-black text: calm beside any cover. */
static const double PAPER[3] = {0xf4, 0xf1, 0xea};
static const double INK[3] = {0x22, 0x22, 0x22};
static const double INK_SOFT[3] = {0x55, 0x51, 0x4b};
static const double INK_FAINT[3] = {0x86, 0x80, 0x77};
static const double SHADOW[3] = {0x3a, 0x30, 0x24};
static const double WHITE[3] = {0xff, 0xff, 0xff};

/* Deep, muted colours, each dark enough for white text (contrast above 4.5:1), chosen by a hash of
   the title (or the name) so that a book keeps its colour from one night to the next. */
static const double PALETTE[][3] = {
    {0x2f, 0x48, 0x58}, /* slate blue */
    {0x7b, 0x3f, 0x3f}, /* brick */
    {0x3d, 0x6b, 0x4f}, /* forest */
    {0x5b, 0x4a, 0x78}, /* plum */
    {0x85, 0x57, 0x1e}, /* ochre */
    {0x2d, 0x66, 0x70}, /* teal */
    {0x6b, 0x3a, 0x5a}, /* mulberry */
    {0x4a, 0x55, 0x68}, /* slate grey */
};
#define PALETTE_SIZE (sizeof PALETTE / sizeof PALETTE[0])

/* libvips keeps one error buffer for every thread at once: its text may be another call's. The
   caller is told what failed in words of ours (as in thumbnail.c, whose helper is static there). */
static void card_error(char *error, size_t length, const char *what) {
    vips_error_clear();
    if (error && length) snprintf(error, length, "%s", what);
}

/* FNV-1a: a small hash that is the same on every machine, for picking a colour. */
static unsigned int text_hash(const char *text) {
    unsigned int hash = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        hash ^= *p;
        hash *= 16777619u;
    }
    return hash;
}

/* The server's string as one clean line: valid UTF-8; line breaks, tabs and control characters made
   spaces (a card sets its own lines, and GMarkup refuses most control characters even escaped); runs
   of spaces made one; none at the ends; at most `longest` characters. Never NULL. */
static char *clean_text(const char *text, int longest) {
    if (!text) return g_strdup("");
    gchar *valid = g_utf8_make_valid(text, -1);
    GString *line = g_string_new(NULL);
    int characters = 0, pending_space = 0;
    for (const gchar *p = valid; *p && characters < longest; p = g_utf8_next_char(p)) {
        gunichar c = g_utf8_get_char(p);
        if (g_unichar_isspace(c) || g_unichar_iscntrl(c)) {
            pending_space = line->len > 0;
            continue;
        }
        if (pending_space) {
            g_string_append_c(line, ' ');
            characters++;
            pending_space = 0;
        }
        g_string_append_unichar(line, c);
        characters++;
    }
    g_free(valid);
    return g_string_free(line, FALSE);
}

/* Whether the text's first letter is of a right-to-left script: Pango decides a paragraph's direction
   by its first strong character and then sets it flush right, so the bar above a title and the row of
   a shelf's covers follow it to that side. Digits and punctuation decide nothing, as in Pango. */
static int starts_right_to_left(const char *text) {
    for (const gchar *p = text; *p; p = g_utf8_next_char(p)) {
        gunichar c = g_utf8_get_char(p);
        if (!g_unichar_isalpha(c)) continue;
        return (c >= 0x0590 && c <= 0x08FF) || (c >= 0xFB1D && c <= 0xFDFF) || (c >= 0xFE70 && c <= 0xFEFF)
            || (c >= 0x10800 && c <= 0x10FFF) || (c >= 0x1E800 && c <= 0x1EFFF);
    }
    return 0;
}

/* The font files are handed to fontconfig once, through vips_text's fontfile, in a call made before
   any other, and never again. libvips 8.14 keeps the fontfile string of the call that added a file as
   the key of its table of files already added, and frees it with that call: each later call with a
   fontfile reads freed memory to compare, and may add the file to fontconfig again, each time
   (libvips fixed it in 2025, pull request 4542). After this, the fonts are asked for by name. A file
   that is not there is skipped, and the card is still drawn: fontconfig then gives its nearest match
   for the name (DejaVu itself where it is installed elsewhere). */
static pthread_once_t fonts_added = PTHREAD_ONCE_INIT;

static void add_fonts(void) {
    const char *files[2] = {REGULAR_FONT_FILE, BOLD_FONT_FILE};
    for (int i = 0; i < 2; i++) {
        if (!g_file_test(files[i], G_FILE_TEST_IS_REGULAR)) continue;
        VipsImage *mask = NULL;
        if (vips_text(&mask, "A", "font", i ? "DejaVu Sans Bold 12" : "DejaVu Sans 12", "fontfile", files[i],
                      "dpi", DPI, NULL))
            vips_error_clear();
        else
            g_object_unref(mask);
    }
}

/* Text set in lines, ready to be drawn in a colour through its mask. Positions are from the top left
   corner of the layout, the box of `width` pixels the lines were wrapped and aligned in. */
typedef struct {
    VipsImage *mask;   /* the ink, 0 to 255; NULL when there is nothing to draw */
    int left, top;     /* the ink's top left corner */
    int width, height; /* the ink's size */
    int line;          /* from one line's baseline to the next */
    int cap;           /* from the layout's top to the top of a capital on its first line */
    int first;         /* from the layout's top to the bottom of a descender on its first line */
} set_text;

static void release_text(set_text *text) {
    if (text->mask) g_object_unref(text->mask);
    memset(text, 0, sizeof *text);
}

/* One call of vips_text. The string is plain text: it is escaped, since vips_text reads Pango markup
   and the text comes from a server. Lines wrap at words, or inside a word longer than a line. */
static int render(const char *plain, int bold, int size, int width, VipsAlign align, set_text *out) {
    memset(out, 0, sizeof *out);
    pthread_once(&fonts_added, add_fonts);
    gchar *escaped = g_markup_escape_text(plain, -1);
    char font[64];
    snprintf(font, sizeof font, "DejaVu Sans%s %d", bold ? " Bold" : "", size);
    VipsImage *mask = NULL;
    int result = vips_text(&mask, escaped, "font", font, "width", width, "align", align, "dpi", DPI,
                           "wrap", VIPS_TEXT_WRAP_WORD_CHAR, NULL);
    g_free(escaped);
    if (result) {
        /* Most often a string with no ink at all (only spaces or invisible characters). */
        vips_error_clear();
        return -1;
    }
    out->mask = mask;
    out->left = vips_image_get_xoffset(mask);
    out->top = vips_image_get_yoffset(mask);
    out->width = vips_image_get_width(mask);
    out->height = vips_image_get_height(mask);
    return 0;
}

/* The font's vertical measures, from the text "Ag" set once and twice: vips_text gives the ink's box
   only, and these let lines be counted and blocks be spaced the same whatever letters they hold. */
static int measure_now(int bold, int size, int *line, int *cap, int *first) {
    set_text one, two;
    if (render("Ag", bold, size, 0, VIPS_ALIGN_LOW, &one)) return -1;
    if (render("Ag\nAg", bold, size, 0, VIPS_ALIGN_LOW, &two)) {
        release_text(&one);
        return -1;
    }
    *cap = one.top;
    *first = one.top + one.height;
    *line = (two.top + two.height) - *first;
    release_text(&one);
    release_text(&two);
    return *line > 0 ? 0 : -1;
}

/* The measures of the few fonts the cards use, kept once measured: they depend on the font alone,
   and measuring costs two settings of text each time a card tries a size. */
typedef struct {
    int bold, size, line, cap, first;
} font_measures;
static font_measures measured[32];
static int measured_count = 0;
G_LOCK_DEFINE_STATIC(measured);

static int measure(int bold, int size, int *line, int *cap, int *first) {
    int found = 0;
    G_LOCK(measured);
    for (int i = 0; i < measured_count && !found; i++)
        if (measured[i].bold == bold && measured[i].size == size) {
            *line = measured[i].line;
            *cap = measured[i].cap;
            *first = measured[i].first;
            found = 1;
        }
    G_UNLOCK(measured);
    if (found) return 0;
    if (measure_now(bold, size, line, cap, first)) return -1;
    G_LOCK(measured);
    if (measured_count < (int)(sizeof measured / sizeof measured[0]))
        measured[measured_count++] = (font_measures){bold, size, *line, *cap, *first};
    G_UNLOCK(measured);
    return 0;
}

/* Whether set text stays within `lines` lines: its last line's descenders end at most a quarter of
   a line below where those of line `lines` would (accents and Arabic's marks reach a little lower;
   one more line reaches most of a line lower). */
static int within_lines(const set_text *text, int lines) {
    return text->top + text->height <= text->first + (lines - 1) * text->line + text->line / 4;
}

/* How many lines set text takes, from where its ink ends. */
static int line_count(const set_text *text) {
    if (!text->mask) return 0;
    int lines = 1 + (text->top + text->height - text->first + text->line / 2) / text->line;
    return lines < 1 ? 1 : lines;
}

/* The top of the first line's capitals and the bottom of the last line's descenders: a block of text
   by its lines, not by its letters, so that gaps look the same whether or not a title has a "g". */
static int text_top(const set_text *text) { return text->mask ? text->cap : 0; }
static int text_bottom(const set_text *text) {
    return text->mask ? text->first + (line_count(text) - 1) * text->line : 0;
}

/* The first `characters` characters of `plain`, without trailing spaces or punctuation, and "…". */
static char *shortened(const char *plain, long characters) {
    const gchar *end = g_utf8_offset_to_pointer(plain, characters);
    while (end > plain) {
        const gchar *previous = g_utf8_prev_char(end);
        gunichar c = g_utf8_get_char(previous);
        if (!g_unichar_isspace(c) && !g_unichar_ispunct(c)) break;
        end = previous;
    }
    GString *text = g_string_new_len(plain, end - plain);
    g_string_append(text, "\xE2\x80\xA6");
    return g_string_free(text, FALSE);
}

/* The text set as large as fits: at the first of `sizes` (largest first) where it takes at most
   `lines` lines of `width` pixels; else at the last size, cut after as many characters as fit, at a
   word where one ends near there, with an ellipsis. Every step depends on the text alone, so the same
   text is always set the same way. An empty string, or one with no ink, sets nothing (mask NULL). */
static void fit_text(const char *plain, int bold, const int *sizes, int size_count, int width, int lines,
                     VipsAlign align, set_text *out) {
    memset(out, 0, sizeof *out);
    if (!plain[0]) return;
    int line = 0, cap = 0, first = 0;
    for (int i = 0; i < size_count; i++) {
        if (measure(bold, sizes[i], &line, &cap, &first)) return;
        set_text text;
        if (render(plain, bold, sizes[i], width, align, &text)) return;
        text.line = line;
        text.cap = cap;
        text.first = first;
        if (within_lines(&text, lines)) {
            *out = text;
            return;
        }
        release_text(&text);
    }
    /* At the smallest size, the longest beginning that fits, found by halving: about 9 settings. */
    int size = sizes[size_count - 1];
    long total = g_utf8_strlen(plain, -1), low = 0, high = total - 1;
    while (low < high) {
        long middle = (low + high + 1) / 2;
        char *candidate = shortened(plain, middle);
        set_text text;
        int fits = 0;
        if (render(candidate, bold, size, width, align, &text) == 0) {
            text.line = line;
            text.first = first;
            fits = within_lines(&text, lines);
            release_text(&text);
        }
        g_free(candidate);
        if (fits) low = middle;
        else high = middle - 1;
    }
    /* Cut at the last space when it keeps at least two thirds of what fits: a whole word reads better. */
    const gchar *cut = g_utf8_offset_to_pointer(plain, low);
    for (const gchar *p = cut; p > plain; p = g_utf8_prev_char(p)) {
        if (g_utf8_get_char(g_utf8_prev_char(p)) == ' ') {
            long at = g_utf8_pointer_to_offset(plain, g_utf8_prev_char(p));
            if (at * 3 >= low * 2) low = at;
            break;
        }
    }
    char *final = shortened(plain, low);
    if (render(final, bold, size, width, align, out) == 0) {
        out->line = line;
        out->cap = cap;
        out->first = first;
    }
    g_free(final);
}

/* Draws set text with its layout's top left corner at (x, y). */
static int draw_text(VipsImage *canvas, const set_text *text, const double colour[3], int x, int y) {
    if (!text->mask) return 0;
    return vips_draw_mask(canvas, (double *)colour, 3, text->mask, x + text->left, y + text->top, NULL);
}

/* A canvas of one colour, in memory so that the draw operations can paint on it: a card's, or an icon's. */
static VipsImage *new_canvas_of(int width, int height, const double colour[3]) {
    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(base), 2);
    VipsImage *canvas = NULL;
    if (!vips_black(&t[0], width, height, "bands", 3, NULL)
        && !vips_copy(t[0], &t[1], "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
        canvas = vips_image_copy_memory(t[1]);
    g_object_unref(base);
    if (canvas && vips_draw_rect(canvas, (double *)colour, 3, 0, 0, width, height, "fill", TRUE, NULL)) {
        g_object_unref(canvas);
        canvas = NULL;
    }
    return canvas;
}

static VipsImage *new_canvas(const double colour[3]) { return new_canvas_of(CARD_WIDTH, CARD_HEIGHT, colour); }

/* How much of a shadow's strength reaches each of `count` positions across it, 0 to 65535: it rises
   from nothing to full over `2 * spread` positions at each end, along a smoothstep, whose half is on
   the edge of the shape casting it (which is what blurring the shape would give, near enough). In
   integers, so that every machine makes the same shadow. */
static void shadow_profile(guint64 *profile, int count, int spread) {
    guint64 ramp = (guint64)(2 * spread), cube = ramp * ramp * ramp;
    for (int i = 0; i < count; i++) {
        guint64 from_start = (guint64)MIN(i, 2 * spread), from_end = (guint64)MIN(count - 1 - i, 2 * spread);
        guint64 rise = from_start * from_start * (3 * ramp - 2 * from_start);
        guint64 fall = from_end * from_end * (3 * ramp - 2 * from_end);
        profile[i] = rise * fall / cube * 65535 / cube;
    }
}

/* A soft shadow under the w x h rectangle at (x, y), dropped a little, drawn in a warm dark at `peak`
   (of 255) where it is full, so that a pale cover still stands off the paper. Made here rather than
   by blurring with libvips: its blur was half a card's time, and takes its vector path (Orc) or its C
   path depending on the machine and VIPS_NOVECTOR, which differ by a level here and there. */
static int draw_shadow(VipsImage *canvas, int x, int y, int w, int h, int spread, int drop, int peak) {
    int width = w + 2 * spread, height = h + 2 * spread;
    guint64 *across = g_new(guint64, width), *down = g_new(guint64, height);
    unsigned char *pixels = g_malloc((gsize)width * height);
    shadow_profile(across, width, spread);
    shadow_profile(down, height, spread);
    const guint64 full = (guint64)65535 * 65535;
    for (int row = 0; row < height; row++)
        for (int column = 0; column < width; column++)
            pixels[(gsize)row * width + column] =
                (unsigned char)(((guint64)peak * across[column] * down[row] + full / 2) / full);
    VipsImage *mask = vips_image_new_from_memory(pixels, (gsize)width * height, width, height, 1, VIPS_FORMAT_UCHAR);
    int result = !mask || vips_draw_mask(canvas, (double *)SHADOW, 3, mask, x - spread, y - spread + drop, NULL);
    if (mask) g_object_unref(mask);
    g_free(pixels);
    g_free(across);
    g_free(down);
    return result ? -1 : 0;
}

/* A colour mixed with white, `amount` of the way. */
static void tint(const double colour[3], double amount, double out[3]) {
    for (int i = 0; i < 3; i++) out[i] = round(colour[i] + (255 - colour[i]) * amount);
}

/* A colour mixed with black, `amount` of the way. */
static void shade(const double colour[3], double amount, double out[3]) {
    for (int i = 0; i < 3; i++) out[i] = round(colour[i] * (1 - amount));
}

/* A plain book in a colour: a panel with a darker spine down its left edge. The spine's width, or -1. */
static int draw_panel(VipsImage *canvas, int x, int y, int w, int h, const double colour[3]) {
    double spine[3];
    shade(colour, 0.22, spine);
    int spine_width = w / 16 > 3 ? w / 16 : 3;
    if (vips_draw_rect(canvas, (double *)colour, 3, x, y, w, h, "fill", TRUE, NULL)
        || vips_draw_rect(canvas, spine, 3, x, y, spine_width, h, "fill", TRUE, NULL))
        return -1;
    return spine_width;
}

/* The stand-in for a book without a cover: its panel, the title in white in the middle, and the
   author small near the foot under a short rule, as a plain cloth binding would have them. */
static int draw_stand_in(VipsImage *canvas, int x, int y, int w, int h, const double colour[3],
                         const char *title, const char *author) {
    int spine = draw_panel(canvas, x, y, w, h, colour);
    if (spine < 0) return -1;
    /* The text is centred on the cloth, right of the spine. */
    x += spine;
    w -= spine;
    int pad = 36, inner = w - 2 * pad;
    static const int title_sizes[] = {42, 38, 34, 30, 27};
    static const int author_sizes[] = {21, 19};
    set_text t_title, t_author;
    fit_text(title, 1, title_sizes, 5, inner, 6, VIPS_ALIGN_CENTRE, &t_title);
    fit_text(author, 0, author_sizes, 2, inner, 2, VIPS_ALIGN_CENTRE, &t_author);
    int result = 0;
    int title_bottom_limit = y + h - pad;
    if (t_author.mask) {
        double light[3];
        tint(colour, 0.78, light);
        int author_y = y + h - 44 - text_bottom(&t_author);
        int rule_y = author_y + text_top(&t_author) - 26;
        result = draw_text(canvas, &t_author, light, x + pad, author_y)
            || vips_draw_rect(canvas, light, 3, x + (w - 40) / 2, rule_y, 40, 2, "fill", TRUE, NULL);
        title_bottom_limit = rule_y - 30;
    }
    if (!result && t_title.mask) {
        /* In the middle of what is left, a little above the panel's centre, where the eye expects it. */
        int space_top = y + pad, block = text_bottom(&t_title) - text_top(&t_title);
        int space = title_bottom_limit - space_top;
        int top = space_top + (space - block) * 2 / 5;
        if (top < space_top) top = space_top;
        result = draw_text(canvas, &t_title, WHITE, x + pad, top - text_top(&t_title));
    }
    release_text(&t_title);
    release_text(&t_author);
    return result;
}

/* What a cover's header claims, nothing decoded: its proportions as shown (EXIF's quarter turns
   counted), its size as shown, and whether it carries an ICC profile. 0: read; -1: unreadable; -2: too
   many pixels. */
static int read_header(const void *bytes, size_t length, long long max_pixels, double *aspect, int *has_profile,
                       int *shown_width, int *shown_height, char *error, size_t error_length) {
    if (!bytes || length == 0) {
        card_error(error, error_length, "the cover is empty");
        return -1;
    }
    VipsImage *header = vips_image_new_from_buffer(bytes, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!header) {
        card_error(error, error_length, "the cover's header could not be read");
        return -1;
    }
    int width = vips_image_get_width(header), height = vips_image_get_height(header);
    int orientation = 1;
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION)) vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation);
    *has_profile = vips_image_get_typeof(header, VIPS_META_ICC_NAME) != 0;
    g_object_unref(header);
    if (width <= 0 || height <= 0 || (long long)width * height > max_pixels) {
        if (error && error_length) snprintf(error, error_length, "the cover claims %d x %d pixels", width, height);
        return -2;
    }
    if (orientation >= 5 && orientation <= 8) { int t = width; width = height; height = t; }
    *aspect = (double)width / height;
    *shown_width = width;
    *shown_height = height;
    return 0;
}

/* The largest w x h of `aspect` (held between `narrowest` and `widest`) inside box_w x box_h. */
static void fit_box(double aspect, double narrowest, double widest, int box_w, int box_h, int *w, int *h) {
    if (aspect < narrowest) aspect = narrowest;
    if (aspect > widest) aspect = widest;
    if (aspect * box_h <= box_w) {
        *h = box_h;
        *w = (int)lround(aspect * box_h);
    } else {
        *w = box_w;
        *h = (int)lround(box_w / aspect);
    }
    if (*w < 1) *w = 1;
    if (*h < 1) *h = 1;
}

/* The cover scaled (up too: a small cover on a card still reads) and cut at its centre to w x h, the
   right way up, its first frame, sRGB, any transparency flattened onto the paper, 3 bands of 8 bits,
   decoded into memory (so that a cut-short file fails here, not while it is drawn). NULL: unreadable.
   shown_width x shown_height is its size as shown, from its header. */
static VipsImage *decode_cover(const void *bytes, size_t length, int has_profile, int shown_width, int shown_height,
                               int w, int h) {
    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(base), 4);
    VipsImage *decoded = NULL;
    /* Scaled to fill the box: by the side that needs the larger scale, the other left free. libvips'
       own crop would decode while the operation is built, under rt_orc_lock; the same centre is
       cut below, from memory, the same pixels. */
    int fill_by_width = (long long)shown_width * h < (long long)shown_height * w;
    int target_w = fill_by_width ? w : VIPS_MAX_COORD, target_h = fill_by_width ? VIPS_MAX_COORD : h;
    rt_orc_lock();
    /* With a profile, colours are made sRGB through it (a CMYK cover needs one; without, libvips
       uses its own CMYK profile). */
    int result = has_profile
        ? vips_thumbnail_buffer((void *)bytes, length, &t[0], target_w, "height", target_h, "size", VIPS_SIZE_BOTH,
                                "no_rotate", FALSE, "option_string", "fail_on=error", "export_profile", "srgb", NULL)
        : vips_thumbnail_buffer((void *)bytes, length, &t[0], target_w, "height", target_h, "size", VIPS_SIZE_BOTH,
                                "no_rotate", FALSE, "option_string", "fail_on=error", NULL);
    VipsImage *in = t[0];
    if (!result && vips_image_get_interpretation(in) != VIPS_INTERPRETATION_sRGB) {
        result = vips_colourspace(in, &t[1], VIPS_INTERPRETATION_sRGB, NULL);
        in = t[1];
    }
    if (!result && vips_image_hasalpha(in)) {
        VipsArrayDouble *background = vips_array_double_new(PAPER, 3);
        result = vips_flatten(in, &t[2], "background", background,
                              "max_alpha", vips_image_get_format(in) == VIPS_FORMAT_USHORT ? 65535.0 : 255.0, NULL);
        vips_area_unref(VIPS_AREA(background));
        in = t[2];
    }
    if (!result && vips_image_get_format(in) != VIPS_FORMAT_UCHAR) {
        result = vips_cast_uchar(in, &t[3], NULL);
        in = t[3];
    }
    rt_orc_unlock();
    VipsImage *whole = !result && vips_image_get_bands(in) == 3 ? vips_image_copy_memory(in) : NULL;
    rt_release(base);
    if (whole) {
        /* As vips_smartcrop's centre: the box, or the image where it is smaller. */
        int width = vips_image_get_width(whole), height = vips_image_get_height(whole);
        int crop_w = w < width ? w : width, crop_h = h < height ? h : height;
        if (vips_extract_area(whole, &decoded, (width - crop_w) / 2, (height - crop_h) / 2, crop_w, crop_h, NULL))
            decoded = NULL;
        rt_release(whole);
    }
    if (!decoded) vips_error_clear();
    return decoded;
}

/* The finished card as JPEG: the same settings every time, no metadata, so the same pixels give the
   same bytes. */
static int encode(VipsImage *canvas, rt_image *out) {
    if (vips_jpegsave_buffer(canvas, &out->data, &out->length, "Q", 85, "strip", TRUE, "optimize_coding", TRUE,
                             "interlace", FALSE, NULL))
        return -1;
    out->width = vips_image_get_width(canvas);
    out->height = vips_image_get_height(canvas);
    out->is_png = 0;
    return 0;
}

/* A line's text at the foot, its descenders on BOTTOM_LINE: the site's title. */
static int draw_footer(VipsImage *canvas, const set_text *site, int x) {
    return draw_text(canvas, site, INK_FAINT, x, BOTTOM_LINE - site->first);
}

int rt_book_card(const void *cover, size_t cover_length, const char *title, const char *author,
                 const char *site_title, long long max_pixels, rt_image *out, char *error, size_t error_length) {
    if (error && error_length) error[0] = 0;
    memset(out, 0, sizeof *out);
    if (rt_start() != 0) {
        card_error(error, error_length, rt_start_error());
        return -1;
    }

    /* The cover first: when it cannot be read the caller hears so before anything is drawn, and
       calls again without it. */
    VipsImage *picture = NULL;
    int cover_w = STAND_IN_WIDTH, cover_h = STAND_IN_HEIGHT;
    if (cover) {
        double aspect = 0;
        int has_profile = 0, shown_w = 0, shown_h = 0;
        int header = read_header(cover, cover_length, max_pixels, &aspect, &has_profile, &shown_w, &shown_h,
                                 error, error_length);
        if (header) return header;
        /* Book covers run from tall to square; anything beyond is cut at its centre to that. */
        fit_box(aspect, 0.5, 1.0, COVER_BOX_WIDTH, COVER_BOX_HEIGHT, &cover_w, &cover_h);
        if (!(picture = decode_cover(cover, cover_length, has_profile, shown_w, shown_h, cover_w, cover_h))) {
            card_error(error, error_length, "the cover could not be read");
            return -1;
        }
        cover_w = vips_image_get_width(picture);
        cover_h = vips_image_get_height(picture);
    }

    char *clean_title = clean_text(title, LONGEST_TEXT);
    char *clean_author = clean_text(author, LONGEST_TEXT);
    char *clean_site = clean_text(site_title, LONGEST_TEXT);
    const double *colour = PALETTE[text_hash(clean_title) % PALETTE_SIZE];
    VipsImage *canvas = new_canvas(PAPER);
    int result = canvas ? 0 : -1;

    /* The cover, or its stand-in, in the middle of its box on the left. */
    int cover_x = SIDE, cover_y = TOP + (COVER_BOX_HEIGHT - cover_h) / 2;
    if (!result) result = draw_shadow(canvas, cover_x, cover_y, cover_w, cover_h, 16, 8, 80);
    if (!result) result = picture
        ? vips_draw_image(canvas, picture, cover_x, cover_y, NULL)
        : draw_stand_in(canvas, cover_x, cover_y, cover_w, cover_h, colour, clean_title, clean_author);

    /* The text in the column to its right: a bar in the book's colour, the title (at most three
       lines), the author (at most two), centred together in the height above the site's title. */
    int column_x = cover_x + cover_w + COLUMN_GAP, column_w = CARD_WIDTH - SIDE - column_x;
    static const int title_sizes[] = {56, 50, 44, 40};
    static const int author_sizes[] = {30, 27};
    static const int site_sizes[] = {22};
    set_text t_title, t_author, t_site;
    fit_text(clean_title, 1, title_sizes, 4, column_w, 3, VIPS_ALIGN_LOW, &t_title);
    fit_text(clean_author, 0, author_sizes, 2, column_w, 2, VIPS_ALIGN_LOW, &t_author);
    fit_text(clean_site, 0, site_sizes, 1, column_w, 1, VIPS_ALIGN_LOW, &t_site);
    int bar_gap = 34, author_gap = 26;
    int block = BAR_HEIGHT + bar_gap + (text_bottom(&t_title) - text_top(&t_title));
    if (t_author.mask) block += author_gap + (text_bottom(&t_author) - text_top(&t_author));
    int y = TOP + (CONTENT_BOTTOM - TOP - block) / 2;
    if (y < TOP) y = TOP;
    if (!result) {
        /* The bar sits on the side the title starts from: the right for Arabic or Hebrew. */
        int bar_x = starts_right_to_left(clean_title) ? column_x + column_w - BAR_WIDTH : column_x;
        result = vips_draw_rect(canvas, (double *)colour, 3, bar_x, y, BAR_WIDTH, BAR_HEIGHT, "fill", TRUE, NULL);
    }
    y += BAR_HEIGHT + bar_gap;
    if (!result) result = draw_text(canvas, &t_title, INK, column_x, y - text_top(&t_title));
    y += text_bottom(&t_title) - text_top(&t_title) + author_gap;
    if (!result) result = draw_text(canvas, &t_author, INK_SOFT, column_x, y - text_top(&t_author));
    if (!result) result = draw_footer(canvas, &t_site, column_x);
    release_text(&t_title);
    release_text(&t_author);
    release_text(&t_site);

    if (!result) result = encode(canvas, out);
    if (result) card_error(error, error_length, "the card could not be drawn");
    if (canvas) g_object_unref(canvas);
    if (picture) rt_release(picture);
    g_free(clean_title);
    g_free(clean_author);
    g_free(clean_site);
    return result ? -1 : 0;
}

int rt_row_card(const char *name, const char *line, const char *site_title, int count,
                const void *const *covers, const size_t *lengths, long long max_pixels,
                rt_image *out, char *error, size_t error_length) {
    if (error && error_length) error[0] = 0;
    memset(out, 0, sizeof *out);
    if (rt_start() != 0) {
        card_error(error, error_length, rt_start_error());
        return -1;
    }
    if (count < 0) count = 0;
    if (count > ROW_LARGEST) count = ROW_LARGEST;

    char *clean_name = clean_text(name, LONGEST_TEXT);
    char *clean_line = clean_text(line, LONGEST_TEXT);
    char *clean_site = clean_text(site_title, LONGEST_TEXT);
    unsigned int hash = text_hash(clean_name);
    const double *colour = PALETTE[hash % PALETTE_SIZE];
    int right_to_left = starts_right_to_left(clean_name);
    VipsImage *canvas = new_canvas(PAPER);
    int result = canvas ? 0 : -1;

    /* The text across the top: a bar, the name (at most two lines), the line under it. */
    int text_w = CARD_WIDTH - 2 * SIDE;
    static const int name_sizes[] = {64, 56, 50, 44};
    static const int line_sizes[] = {30, 27};
    static const int site_sizes[] = {22};
    set_text t_name, t_line, t_site;
    fit_text(clean_name, 1, name_sizes, 4, text_w, 2, VIPS_ALIGN_LOW, &t_name);
    fit_text(clean_line, 0, line_sizes, 2, text_w, 1, VIPS_ALIGN_LOW, &t_line);
    fit_text(clean_site, 0, site_sizes, 1, text_w, 1, VIPS_ALIGN_LOW, &t_site);
    int bar_gap = 30, line_gap = 22;
    int block = BAR_HEIGHT + bar_gap + (text_bottom(&t_name) - text_top(&t_name));
    if (t_line.mask) block += line_gap + (text_bottom(&t_line) - text_top(&t_line));
    /* Without covers the text stands in the middle of the card; with them, at its top. */
    int y = count > 0 ? TOP + 6 : TOP + (CONTENT_BOTTOM - TOP - block) / 2;
    if (!result) {
        int bar_x = right_to_left ? CARD_WIDTH - SIDE - BAR_WIDTH : SIDE;
        result = vips_draw_rect(canvas, (double *)colour, 3, bar_x, y, BAR_WIDTH, BAR_HEIGHT, "fill", TRUE, NULL);
    }
    y += BAR_HEIGHT + bar_gap;
    if (!result) result = draw_text(canvas, &t_name, INK, SIDE, y - text_top(&t_name));
    y += text_bottom(&t_name) - text_top(&t_name);
    if (t_line.mask) {
        y += line_gap;
        if (!result) result = draw_text(canvas, &t_line, INK_SOFT, SIDE, y - text_top(&t_line));
        y += text_bottom(&t_line) - text_top(&t_line);
    }
    if (!result) result = draw_footer(canvas, &t_site, SIDE);
    release_text(&t_name);
    release_text(&t_line);
    release_text(&t_site);

    if (!result && count > 0) {
        /* The row: every cover the same height, as tall as the space below the text allows and as
           the row's width allows, each as wide as its proportions (held between 1:2 and 3:2) say. A
           cover that is missing, unreadable or too large is a plain panel of a book's proportions. */
        double aspects[ROW_LARGEST];
        int profiles[ROW_LARGEST], readable[ROW_LARGEST], shown_w[ROW_LARGEST], shown_h[ROW_LARGEST];
        double total = 0;
        for (int i = 0; i < count; i++) {
            const void *bytes = covers ? covers[i] : NULL;
            size_t length = lengths ? lengths[i] : 0;
            aspects[i] = 2.0 / 3.0;
            profiles[i] = 0;
            readable[i] = bytes && length > 0
                && read_header(bytes, length, max_pixels, &aspects[i], &profiles[i], &shown_w[i], &shown_h[i], NULL, 0) == 0;
            if (!readable[i]) aspects[i] = 2.0 / 3.0;
            if (aspects[i] < 0.5) aspects[i] = 0.5;
            if (aspects[i] > 1.5) aspects[i] = 1.5;
            total += aspects[i];
        }
        /* Clear of the site's title below by as much as of the text above. */
        int row_top = y + 44, row_bottom = CONTENT_BOTTOM - 22;
        int height = row_bottom - row_top;
        int by_width = (int)floor((text_w - ROW_GAP * (count - 1)) / total);
        if (height > by_width) height = by_width;
        if (height > ROW_TALLEST) height = ROW_TALLEST;
        if (height < 40) height = 40;
        /* Down from the text by a third of what is left over, so the row neither hangs nor sinks. */
        int row_y = row_top + (row_bottom - row_top - height) / 3;
        if (row_y < row_top) row_y = row_top;
        int x = SIDE;
        for (int i = 0; i < count && !result; i++) {
            int w = (int)lround(aspects[i] * height), h = height;
            VipsImage *picture = readable[i] ? decode_cover(covers[i], lengths[i], profiles[i], shown_w[i], shown_h[i], w, h) : NULL;
            if (picture) {
                w = vips_image_get_width(picture);
                h = vips_image_get_height(picture);
            }
            /* Right to left, the row starts from the right, as the name does. */
            int at = right_to_left ? CARD_WIDTH - x - w : x;
            result = draw_shadow(canvas, at, row_y, w, h, 11, 6, 72);
            if (!result) result = picture
                ? vips_draw_image(canvas, picture, at, row_y, NULL)
                : draw_panel(canvas, at, row_y, w, h, PALETTE[(hash + 1 + i) % PALETTE_SIZE]) < 0;
            if (picture) rt_release(picture);
            x += w + ROW_GAP;
        }
    }

    if (!result) result = encode(canvas, out);
    if (result) card_error(error, error_length, "the card could not be drawn");
    if (canvas) g_object_unref(canvas);
    g_free(clean_name);
    g_free(clean_line);
    g_free(clean_site);
    return result ? -1 : 0;
}

int rt_app_icon(const char *letter, int size, const double colour[3], rt_image *out, char *error, size_t error_length) {
    memset(out, 0, sizeof *out);
    if (size < 16 || size > 1024) {
        card_error(error, error_length, "an icon's size is between 16 and 1024 pixels");
        return -1;
    }
    VipsImage *canvas = new_canvas_of(size, size, colour);
    int result = canvas ? 0 : -1;
    char *clean = clean_text(letter, 1);
    set_text text;
    memset(&text, 0, sizeof text);
    /* Half the icon high, centred on the ink itself: a letter's box holds room for accents and
       descenders that it does not use. */
    if (!result && clean && clean[0] && !render(clean, 1, size / 2, 0, VIPS_ALIGN_CENTRE, &text) && text.mask)
        result = vips_draw_mask(canvas, (double *)WHITE, 3, text.mask, (size - text.width) / 2, (size - text.height) / 2, NULL);
    release_text(&text);
    g_free(clean);
    if (!result) {
        result = vips_pngsave_buffer(canvas, &out->data, &out->length, "compression", 9, "strip", TRUE, NULL);
        out->width = size;
        out->height = size;
        out->is_png = 1;
    }
    if (result) card_error(error, error_length, "the icon could not be drawn");
    if (canvas) g_object_unref(canvas);
    return result ? -1 : 0;
}
