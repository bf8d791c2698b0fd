#ifndef RT_VIPS_FUNCTIONS_H
#define RT_VIPS_FUNCTIONS_H
#include <vips/vips.h>

/* libvips is opened when the first image is made (rt_start), not linked: linked, it and the
   ninety libraries it needs cost every run about 18 MB of memory from the start, and a night
   with no new cover makes no image. Each function these files call is a pointer filled in by
   rt_start; the names below turn the calls (and the header's macros, such as VIPS_INIT and
   VIPS_IMAGE) into calls through them. A function added here must be added to both lists. */

#define RT_VIPS_FUNCTIONS(X) \
    X(vips_area_unref) \
    X(vips_array_double_new) \
    X(vips_bandjoin) \
    X(vips_black) \
    X(vips_block_untrusted_set) \
    X(vips_cache_set_max) \
    X(vips_cache_set_max_files) \
    X(vips_cache_set_max_mem) \
    X(vips_cast_uchar) \
    X(vips_colourspace) \
    X(vips_concurrency_set) \
    X(vips_copy) \
    X(vips_draw_image) \
    X(vips_draw_mask) \
    X(vips_draw_rect) \
    X(vips_error) \
    X(vips_error_clear) \
    X(vips_extract_area) \
    X(vips_extract_band) \
    X(vips_flatten) \
    X(vips_foreign_find_load_buffer) \
    X(vips_gaussblur) \
    X(vips_gaussnoise) \
    X(vips_image_copy_memory) \
    X(vips_image_get_bands) \
    X(vips_image_get_format) \
    X(vips_image_get_height) \
    X(vips_image_get_int) \
    X(vips_image_get_interpretation) \
    X(vips_image_get_typeof) \
    X(vips_image_get_width) \
    X(vips_image_get_xoffset) \
    X(vips_image_get_yoffset) \
    X(vips_image_hasalpha) \
    X(vips_image_new) \
    X(vips_image_new_from_buffer) \
    X(vips_image_new_from_file) \
    X(vips_image_new_from_memory) \
    X(vips_init) \
    X(vips_jpegload_buffer) \
    X(vips_jpegsave_buffer) \
    X(vips_linear1) \
    X(vips_min) \
    X(vips_object_get_type) \
    X(vips_object_local_array) \
    X(vips_operation_block_set) \
    X(vips_pngsave_buffer) \
    X(vips_resize) \
    X(vips_text) \
    X(vips_thumbnail_buffer) \
    X(vips_thumbnail_image) \
    X(vips_version) \
    X(vips_xyz) \
    /* end */

#define RT_VIPS_DECLARE(name) extern __typeof__(name) *rt_##name;
RT_VIPS_FUNCTIONS(RT_VIPS_DECLARE)
#undef RT_VIPS_DECLARE

#define vips_area_unref (*rt_vips_area_unref)
#define vips_array_double_new (*rt_vips_array_double_new)
#define vips_bandjoin (*rt_vips_bandjoin)
#define vips_black (*rt_vips_black)
#define vips_block_untrusted_set (*rt_vips_block_untrusted_set)
#define vips_cache_set_max (*rt_vips_cache_set_max)
#define vips_cache_set_max_files (*rt_vips_cache_set_max_files)
#define vips_cache_set_max_mem (*rt_vips_cache_set_max_mem)
#define vips_cast_uchar (*rt_vips_cast_uchar)
#define vips_colourspace (*rt_vips_colourspace)
#define vips_concurrency_set (*rt_vips_concurrency_set)
#define vips_copy (*rt_vips_copy)
#define vips_draw_image (*rt_vips_draw_image)
#define vips_draw_mask (*rt_vips_draw_mask)
#define vips_draw_rect (*rt_vips_draw_rect)
#define vips_error (*rt_vips_error)
#define vips_error_clear (*rt_vips_error_clear)
#define vips_extract_area (*rt_vips_extract_area)
#define vips_extract_band (*rt_vips_extract_band)
#define vips_flatten (*rt_vips_flatten)
#define vips_foreign_find_load_buffer (*rt_vips_foreign_find_load_buffer)
#define vips_gaussblur (*rt_vips_gaussblur)
#define vips_gaussnoise (*rt_vips_gaussnoise)
#define vips_image_copy_memory (*rt_vips_image_copy_memory)
#define vips_image_get_bands (*rt_vips_image_get_bands)
#define vips_image_get_format (*rt_vips_image_get_format)
#define vips_image_get_height (*rt_vips_image_get_height)
#define vips_image_get_int (*rt_vips_image_get_int)
#define vips_image_get_interpretation (*rt_vips_image_get_interpretation)
#define vips_image_get_typeof (*rt_vips_image_get_typeof)
#define vips_image_get_width (*rt_vips_image_get_width)
#define vips_image_get_xoffset (*rt_vips_image_get_xoffset)
#define vips_image_get_yoffset (*rt_vips_image_get_yoffset)
#define vips_image_hasalpha (*rt_vips_image_hasalpha)
#define vips_image_new (*rt_vips_image_new)
#define vips_image_new_from_buffer (*rt_vips_image_new_from_buffer)
#define vips_image_new_from_file (*rt_vips_image_new_from_file)
#define vips_image_new_from_memory (*rt_vips_image_new_from_memory)
#define vips_init (*rt_vips_init)
#define vips_jpegload_buffer (*rt_vips_jpegload_buffer)
#define vips_jpegsave_buffer (*rt_vips_jpegsave_buffer)
#define vips_linear1 (*rt_vips_linear1)
#define vips_min (*rt_vips_min)
#define vips_object_get_type (*rt_vips_object_get_type)
#define vips_object_local_array (*rt_vips_object_local_array)
#define vips_operation_block_set (*rt_vips_operation_block_set)
#define vips_pngsave_buffer (*rt_vips_pngsave_buffer)
#define vips_resize (*rt_vips_resize)
#define vips_text (*rt_vips_text)
#define vips_thumbnail_buffer (*rt_vips_thumbnail_buffer)
#define vips_thumbnail_image (*rt_vips_thumbnail_image)
#define vips_version (*rt_vips_version)
#define vips_xyz (*rt_vips_xyz)

#endif
