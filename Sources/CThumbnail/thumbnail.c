#include "CThumbnail.h"
#include "vips_functions.h"
#include "orc_guard.h"
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

static pthread_once_t started = PTHREAD_ONCE_INIT;
static int start_result = -1;

/* See orc_guard.h. */
static pthread_mutex_t orc_code = PTHREAD_MUTEX_INITIALIZER;

void rt_orc_lock(void) { pthread_mutex_lock(&orc_code); }
void rt_orc_unlock(void) { pthread_mutex_unlock(&orc_code); }

void rt_release(VipsImage *image) {
    if (!image) return;
    rt_orc_lock();
    g_object_unref(image);
    rt_orc_unlock();
}

static void quiet(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

#define RT_VIPS_DEFINE(name) __typeof__(name) *rt_##name;
RT_VIPS_FUNCTIONS(RT_VIPS_DEFINE)
#undef RT_VIPS_DEFINE

/* Why libvips could not be opened, for rt_start_error. */
static char open_error[200] = "libvips was not opened";

static int open_vips(void) {
    /* Its file name carries its ABI version (42 for libvips 8), as the headers give it. */
    int abi = VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE;
    /* Homebrew's folder on Apple silicon is not one dlopen searches. */
    char names[5][64];
    snprintf(names[0], sizeof names[0], "libvips.so.%d", abi);
    snprintf(names[1], sizeof names[1], "libvips.%d.dylib", abi);
    snprintf(names[2], sizeof names[2], "/opt/homebrew/lib/libvips.%d.dylib", abi);
    snprintf(names[3], sizeof names[3], "libvips.so");
    snprintf(names[4], sizeof names[4], "libvips.dylib");
    void *library = NULL;
    for (int i = 0; !library && i < 5; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
        /* The first name's failure is the one that says what is missing. */
        const char *reason = library ? NULL : dlerror();
        if (i == 0 && reason) snprintf(open_error, sizeof open_error, "%s", reason);
    }
    if (!library) return -1;
#define RT_VIPS_LOAD(name) \
    if (!(rt_##name = (__typeof__(rt_##name))dlsym(library, #name))) { \
        snprintf(open_error, sizeof open_error, "%s has no %s", names[0], #name); \
        return -1; \
    }
    RT_VIPS_FUNCTIONS(RT_VIPS_LOAD)
#undef RT_VIPS_LOAD
    return 0;
}

static void start_once(void) {
    if (open_vips()) {
        start_result = -3;
        return;
    }
    if (VIPS_INIT("reader-snapshot")) {
        snprintf(open_error, sizeof open_error, "libvips could not start");
        return;
    }
    /* libvips' warnings are about the image in hand: the caller reports what matters. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, quiet, NULL);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadNsgif", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);
    start_result = 0;
}

int rt_start(void) {
    pthread_once(&started, start_once);
    return start_result;
}

const char *rt_start_error(void) {
    rt_start();
    return start_result == 0 ? NULL : open_error;
}

void rt_free(void *data) { g_free(data); }

void rt_lower_thread_priority(void) {
#ifdef __linux__
    /* Linux's nice value is a thread's own. */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
#endif
}

/* libvips keeps one error buffer for every thread at once: its text may be another call's. The
   caller is told what failed in words of ours, the same for the same image whatever runs beside it. */
static void take_error(char *error, size_t length, const char *what) {
    vips_error_clear();
    if (error && length) snprintf(error, length, "%s", what);
}

static void clear(rt_image *image) {
    if (image->data) g_free(image->data);
    memset(image, 0, sizeof *image);
}

/* JPEG, or PNG when some pixel is not opaque; an opaque alpha (GIFs load with one) is dropped. */
static int save(VipsImage *image, int png, rt_image *out) {
    int result = png
        ? vips_pngsave_buffer(image, &out->data, &out->length, "compression", 6, "strip", TRUE, NULL)
        : vips_jpegsave_buffer(image, &out->data, &out->length, "Q", 82, "strip", TRUE,
                               "optimize_coding", TRUE, "interlace", FALSE, NULL);
    if (result) return -1;
    out->width = vips_image_get_width(image);
    out->height = vips_image_get_height(image);
    out->is_png = png;
    return 0;
}

int rt_thumbnails(const void *bytes, size_t length, int count, const int *widths, const int *heights,
                  long long max_pixels, rt_image *out, char *error, size_t error_length) {
    if (error && error_length) error[0] = 0;
    for (int i = 0; i < count; i++) memset(&out[i], 0, sizeof out[i]);
    if (rt_start() != 0) {
        if (error && error_length) snprintf(error, error_length, "%s", open_error);
        return -3;
    }
    if (!bytes || length == 0 || count <= 0) {
        if (error && error_length) snprintf(error, error_length, "no image");
        return -1;
    }
    /* The header alone: a few kilobytes can claim 60000 x 60000 pixels. */
    VipsImage *header = vips_image_new_from_buffer(bytes, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!header) {
        take_error(error, error_length, "its header could not be read");
        return -1;
    }
    int width = vips_image_get_width(header), height = vips_image_get_height(header);
    int orientation = 1;
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION)) vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation);
    int has_profile = vips_image_get_typeof(header, VIPS_META_ICC_NAME) != 0;
    g_object_unref(header);
    if (width <= 0 || height <= 0 || (long long)width * height > max_pixels) {
        if (error && error_length) snprintf(error, error_length, "the image claims %d x %d pixels", width, height);
        return -2;
    }
    /* As shown: orientations 5 to 8 turn the image a quarter. */
    if (orientation >= 5 && orientation <= 8) { int t = width; width = height; height = t; }

    /* The largest box first, from the file; the others from it, in memory. */
    int largest = 0;
    for (int i = 1; i < count; i++) if (widths[i] > widths[largest]) largest = i;
    double fill = fmax((double)widths[largest] / width, (double)heights[largest] / height);
    int target = (int)ceil(width * fill);
    if (target > width) target = width;
    /* A JPEG is decoded at a half, a quarter or an eighth of its size (libjpeg scales as it decodes:
       four to sixty-four times fewer pixels to decode and to resize) when that still leaves a quarter
       more than the largest box for the resize to smooth. vips_thumbnail_buffer waits for twice the
       box, so a 1216 x 1824 cover was decoded whole for a 384-wide thumbnail. With less than a
       quarter left (an 800 x 1200 cover at a half), the thumbnail came out sharper than before where a
       cover has lettering (an SSIM of 0.969 against it); with a quarter, 0.981 at the least. */
    int shrink = 1;
    const char *loader = vips_foreign_find_load_buffer(bytes, length);
    if (loader && strcmp(loader, "VipsForeignLoadJpegBuffer") == 0)
        while (shrink < 8 && fill * shrink * 2 * 1.25 <= 1.0) shrink *= 2;
    VipsImage *big = NULL;
    int result;
    rt_orc_lock();
    if (shrink > 1) {
        VipsImage *loaded = NULL;
        result = vips_jpegload_buffer((void *)bytes, length, &loaded, "shrink", shrink, "fail_on", VIPS_FAIL_ON_ERROR,
                                      "access", VIPS_ACCESS_SEQUENTIAL, NULL);
        if (!result)
            result = has_profile
                ? vips_thumbnail_image(loaded, &big, target, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN,
                                       "export_profile", "srgb", NULL)
                : vips_thumbnail_image(loaded, &big, target, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL);
        if (loaded) g_object_unref(loaded);
    } else {
        result = has_profile
            ? vips_thumbnail_buffer((void *)bytes, length, &big, target, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN,
                                    "option_string", "fail_on=error", "export_profile", "srgb", NULL)
            : vips_thumbnail_buffer((void *)bytes, length, &big, target, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN,
                                    "option_string", "fail_on=error", NULL);
    }
    rt_orc_unlock();
    if (result) {
        take_error(error, error_length, "it could not be read");
        return -1;
    }
    /* Decoding happens here: a truncated or corrupt file fails now. */
    VipsImage *decoded = vips_image_copy_memory(big);
    rt_release(big);
    if (!decoded) {
        take_error(error, error_length, "it is cut short or corrupt");
        return -1;
    }
    int png = 0;
    VipsImage *flat = decoded;
    g_object_ref(flat);
    if (vips_image_hasalpha(decoded)) {
        int bands = vips_image_get_bands(decoded);
        VipsImage *alpha = NULL;
        double lowest = 0;
        if (vips_extract_band(decoded, &alpha, bands - 1, NULL) || vips_min(alpha, &lowest, NULL)) {
            if (alpha) rt_release(alpha);
            rt_release(flat);
            rt_release(decoded);
            take_error(error, error_length, "its transparency could not be read");
            return -1;
        }
        rt_release(alpha);
        if (lowest < (vips_image_get_format(decoded) == VIPS_FORMAT_USHORT ? 65535 : 255)) {
            png = 1;
        } else {
            rt_release(flat);
            flat = NULL;
            if (vips_extract_band(decoded, &flat, 0, "n", bands - 1, NULL)) {
                rt_release(decoded);
                take_error(error, error_length, "it could not be flattened");
                return -1;
            }
        }
    }
    rt_release(decoded);
    int failed = 0;
    for (int i = 0; i < count && !failed; i++) {
        VipsImage *sized = NULL;
        if (i == largest) {
            sized = flat;
            g_object_ref(sized);
        } else {
            int w = vips_image_get_width(flat), h = vips_image_get_height(flat);
            double scale = fmax((double)widths[i] / w, (double)heights[i] / h);
            int tw = (int)ceil(w * scale);
            if (tw >= w) {
                sized = flat;
                g_object_ref(sized);
            } else {
                /* From the largest, already smooth: a linear kernel is as sharp there, and a sixth of the
                   time. With transparency, thumbnail_image, which premultiplies (no dark fringes). */
                rt_orc_lock();
                int resized = png
                    ? vips_thumbnail_image(flat, &sized, tw, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL)
                    : vips_resize(flat, &sized, (double)tw / w, "kernel", VIPS_KERNEL_LINEAR, NULL);
                rt_orc_unlock();
                if (resized) {
                    failed = 1;
                    break;
                }
            }
        }
        if (save(sized, png, &out[i])) failed = 1;
        rt_release(sized);
    }
    rt_release(flat);
    if (failed) {
        take_error(error, error_length, "a thumbnail could not be encoded");
        for (int i = 0; i < count; i++) clear(&out[i]);
        return -1;
    }
    return 0;
}

int rt_image_size(const char *path, int *width, int *height) {
    *width = *height = 0;
    if (rt_start() != 0) return -1;
    VipsImage *header = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!header) {
        vips_error_clear();
        return -1;
    }
    *width = vips_image_get_width(header);
    *height = vips_image_get_height(header);
    g_object_unref(header);
    return 0;
}

int rt_sample_jpeg(int width, int height, int seed, int quality, rt_image *out) {
    memset(out, 0, sizeof *out);
    if (rt_start() != 0 || width <= 0 || height <= 0) return -1;
    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(base), 10);
    /* The sample server makes its covers on every core at once: a blur may compile vector code. */
    rt_orc_lock();
    int result = vips_gaussnoise(&t[0], width, height, "sigma", 60.0, "mean", 128.0, "seed", seed, NULL)
        || vips_gaussnoise(&t[1], width, height, "sigma", 60.0, "mean", 128.0, "seed", seed + 7919, NULL)
        || vips_xyz(&t[2], width, height, NULL)
        || vips_extract_band(t[2], &t[3], 0, NULL)
        || vips_linear1(t[3], &t[4], 255.0 / width, 0, NULL)
        || vips_bandjoin((VipsImage *[]){t[0], t[1], t[4]}, &t[5], 3, NULL)
        || vips_gaussblur(t[5], &t[6], 4.0, NULL)
        || vips_cast_uchar(t[6], &t[7], NULL)
        || vips_copy(t[7], &t[8], "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    rt_orc_unlock();
    result = result
        || vips_jpegsave_buffer(t[8], &out->data, &out->length, "Q", quality, "strip", TRUE, NULL);
    if (result) vips_error_clear();
    else {
        out->width = width;
        out->height = height;
    }
    rt_release(base);
    return result ? -1 : 0;
}
