/* SPDX-License-Identifier: MIT */
/*
 * The OpenVX 1.3.1 functions libvdla implements (see docs/openvx.md for the
 * list of what is and is not there yet). Signatures follow the Khronos
 * specification.
 */
#ifndef VX_API_H
#define VX_API_H

#include <VX/vx_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Context */
VX_API_ENTRY vx_context VX_API_CALL vxCreateContext(void);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseContext(vx_context *context);
VX_API_ENTRY vx_context VX_API_CALL vxGetContext(vx_reference reference);
VX_API_ENTRY vx_status VX_API_CALL vxSetContextAttribute(
	vx_context context, vx_enum attribute, const void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxQueryContext(
	vx_context context, vx_enum attribute, void *ptr, vx_size size);
/* The target of the vxu functions (VX/vxu.h): VX_TARGET_ANY, or
 * VX_TARGET_STRING with "any", "cpu" or "dla". */
VX_API_ENTRY vx_status VX_API_CALL vxSetImmediateModeTarget(
	vx_context context, vx_enum target_enum, const char *target_string);
VX_API_ENTRY vx_status VX_API_CALL vxAllocateUserKernelId(
	vx_context context, vx_enum *pKernelEnumId);
VX_API_ENTRY vx_status VX_API_CALL vxAllocateUserKernelLibraryId(
	vx_context context, vx_enum *pLibraryId);

/* References */
VX_API_ENTRY vx_status VX_API_CALL vxGetStatus(vx_reference reference);
VX_API_ENTRY vx_status VX_API_CALL vxQueryReference(
	vx_reference ref, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseReference(vx_reference *ref_ptr);
VX_API_ENTRY vx_status VX_API_CALL vxRetainReference(vx_reference ref);
VX_API_ENTRY vx_status VX_API_CALL vxSetReferenceName(vx_reference ref, const vx_char *name);

/* Logging */
VX_API_ENTRY void VX_API_CALL vxRegisterLogCallback(
	vx_context context, vx_log_callback_f callback, vx_bool reentrant);
VX_API_ENTRY void VX_API_CALL vxAddLogEntry(
	vx_reference ref, vx_status status, const char *message, ...);

/* Hints and directives */
VX_API_ENTRY vx_status VX_API_CALL vxHint(
	vx_reference reference, vx_enum hint, const void *data, vx_size data_size);
VX_API_ENTRY vx_status VX_API_CALL vxDirective(vx_reference reference, vx_enum directive);

/* Scalars */
VX_API_ENTRY vx_scalar VX_API_CALL vxCreateScalar(
	vx_context context, vx_enum data_type, const void *ptr);
VX_API_ENTRY vx_scalar VX_API_CALL vxCreateVirtualScalar(vx_graph graph, vx_enum data_type);
VX_API_ENTRY vx_scalar VX_API_CALL vxCreateScalarWithSize(
	vx_context context, vx_enum data_type, const void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseScalar(vx_scalar *scalar);
VX_API_ENTRY vx_status VX_API_CALL vxQueryScalar(
	vx_scalar scalar, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxCopyScalar(
	vx_scalar scalar, void *user_ptr, vx_enum usage, vx_enum user_mem_type);
VX_API_ENTRY vx_status VX_API_CALL vxCopyScalarWithSize(
	vx_scalar scalar, vx_size size, void *user_ptr, vx_enum usage, vx_enum user_mem_type);

/* Look-up tables: VX_TYPE_UINT8 (at most 256 entries, VX_LUT_OFFSET 0) or
 * VX_TYPE_INT16 (at most 65536, VX_LUT_OFFSET count / 2). */
VX_API_ENTRY vx_lut VX_API_CALL vxCreateLUT(vx_context context, vx_enum data_type, vx_size count);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseLUT(vx_lut *lut);
VX_API_ENTRY vx_status VX_API_CALL vxQueryLUT(vx_lut lut, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxCopyLUT(
	vx_lut lut, void *user_ptr, vx_enum usage, vx_enum user_mem_type);
VX_API_ENTRY vx_status VX_API_CALL vxMapLUT(vx_lut lut, vx_map_id *map_id, void **ptr,
	vx_enum usage, vx_enum mem_type, vx_bitfield flags);
VX_API_ENTRY vx_status VX_API_CALL vxUnmapLUT(vx_lut lut, vx_map_id map_id);

/* User structs */
VX_API_ENTRY vx_enum VX_API_CALL vxRegisterUserStruct(vx_context context, vx_size size);
VX_API_ENTRY vx_enum VX_API_CALL vxRegisterUserStructWithName(
	vx_context context, vx_size size, const vx_char *type_name);
VX_API_ENTRY vx_status VX_API_CALL vxGetUserStructNameByEnum(
	vx_context context, vx_enum user_struct_type, vx_char *type_name, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxGetUserStructEnumByName(
	vx_context context, const vx_char *type_name, vx_enum *user_struct_type);

/* Object arrays */
VX_API_ENTRY vx_object_array VX_API_CALL vxCreateObjectArray(
	vx_context context, vx_reference exemplar, vx_size count);
VX_API_ENTRY vx_object_array VX_API_CALL vxCreateVirtualObjectArray(
	vx_graph graph, vx_reference exemplar, vx_size count);
VX_API_ENTRY vx_reference VX_API_CALL vxGetObjectArrayItem(vx_object_array arr, vx_uint32 index);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseObjectArray(vx_object_array *arr);
VX_API_ENTRY vx_status VX_API_CALL vxQueryObjectArray(
	vx_object_array arr, vx_enum attribute, void *ptr, vx_size size);

/* Tensors */
VX_API_ENTRY vx_tensor VX_API_CALL vxCreateTensor(vx_context context, vx_size number_of_dims,
	const vx_size *dims, vx_enum data_type, vx_int8 fixed_point_position);
VX_API_ENTRY vx_tensor VX_API_CALL vxCreateVirtualTensor(vx_graph graph, vx_size number_of_dims,
	const vx_size *dims, vx_enum data_type, vx_int8 fixed_point_position);
VX_API_ENTRY vx_tensor VX_API_CALL vxCreateTensorFromHandle(vx_context context,
	vx_size number_of_dims, const vx_size *dims, vx_enum data_type,
	vx_int8 fixed_point_position, const vx_size *stride, void *ptr, vx_enum memory_type);
VX_API_ENTRY vx_status VX_API_CALL vxSwapTensorHandle(
	vx_tensor tensor, void *new_ptr, void **prev_ptr);
VX_API_ENTRY vx_tensor VX_API_CALL vxCreateTensorFromView(vx_tensor tensor,
	vx_size number_of_dims, const vx_size *view_start, const vx_size *view_end);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseTensor(vx_tensor *tensor);
VX_API_ENTRY vx_status VX_API_CALL vxQueryTensor(
	vx_tensor tensor, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxCopyTensorPatch(vx_tensor tensor, vx_size number_of_dims,
	const vx_size *view_start, const vx_size *view_end, const vx_size *user_stride,
	void *user_ptr, vx_enum usage, vx_enum user_memory_type);
VX_API_ENTRY vx_status VX_API_CALL vxMapTensorPatch(vx_tensor tensor, vx_size number_of_dims,
	const vx_size *view_start, const vx_size *view_end, vx_map_id *map_id, vx_size *stride,
	void **ptr, vx_enum usage, vx_enum viewer_memory_type);
VX_API_ENTRY vx_status VX_API_CALL vxUnmapTensorPatch(vx_tensor tensor, const vx_map_id map_id);

/* Images */
VX_API_ENTRY vx_image VX_API_CALL vxCreateImage(
	vx_context context, vx_uint32 width, vx_uint32 height, vx_df_image color);
VX_API_ENTRY vx_image VX_API_CALL vxCreateVirtualImage(
	vx_graph graph, vx_uint32 width, vx_uint32 height, vx_df_image color);
VX_API_ENTRY vx_image VX_API_CALL vxCreateUniformImage(vx_context context, vx_uint32 width,
	vx_uint32 height, vx_df_image color, const vx_pixel_value_t *value);
VX_API_ENTRY vx_image VX_API_CALL vxCreateImageFromHandle(vx_context context, vx_df_image color,
	const vx_imagepatch_addressing_t addrs[], void *const ptrs[], vx_enum memory_type);
/* Sub-images: views of part of another image's memory (docs/openvx.md, "Images"). */
VX_API_ENTRY vx_image VX_API_CALL vxCreateImageFromROI(vx_image img, const vx_rectangle_t *rect);
VX_API_ENTRY vx_image VX_API_CALL vxCreateImageFromChannel(vx_image img, vx_enum channel);
VX_API_ENTRY vx_status VX_API_CALL vxSwapImageHandle(
	vx_image image, void *const new_ptrs[], void *prev_ptrs[], vx_size num_planes);
VX_API_ENTRY vx_status VX_API_CALL vxQueryImage(
	vx_image image, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxSetImageAttribute(
	vx_image image, vx_enum attribute, const void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxSetImagePixelValues(
	vx_image image, const vx_pixel_value_t *pixel_value);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseImage(vx_image *image);
VX_API_ENTRY vx_status VX_API_CALL vxCopyImagePatch(vx_image image,
	const vx_rectangle_t *image_rect, vx_uint32 image_plane_index,
	const vx_imagepatch_addressing_t *user_addr, void *user_ptr, vx_enum usage,
	vx_enum user_mem_type);
VX_API_ENTRY vx_status VX_API_CALL vxMapImagePatch(vx_image image, const vx_rectangle_t *rect,
	vx_uint32 plane_index, vx_map_id *map_id, vx_imagepatch_addressing_t *addr, void **ptr,
	vx_enum usage, vx_enum mem_type, vx_uint32 flags);
VX_API_ENTRY vx_status VX_API_CALL vxUnmapImagePatch(vx_image image, vx_map_id map_id);
VX_API_ENTRY void *VX_API_CALL vxFormatImagePatchAddress1d(
	void *ptr, vx_uint32 index, const vx_imagepatch_addressing_t *addr);
VX_API_ENTRY void *VX_API_CALL vxFormatImagePatchAddress2d(
	void *ptr, vx_uint32 x, vx_uint32 y, const vx_imagepatch_addressing_t *addr);
VX_API_ENTRY vx_status VX_API_CALL vxGetValidRegionImage(vx_image image, vx_rectangle_t *rect);
VX_API_ENTRY vx_status VX_API_CALL vxSetImageValidRectangle(
	vx_image image, const vx_rectangle_t *rect);

/* Kernels and parameters */
VX_API_ENTRY vx_kernel VX_API_CALL vxGetKernelByName(vx_context context, const vx_char *name);
VX_API_ENTRY vx_kernel VX_API_CALL vxGetKernelByEnum(vx_context context, vx_enum kernel);
VX_API_ENTRY vx_status VX_API_CALL vxQueryKernel(
	vx_kernel kernel, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseKernel(vx_kernel *kernel);
VX_API_ENTRY vx_parameter VX_API_CALL vxGetKernelParameterByIndex(
	vx_kernel kernel, vx_uint32 index);
VX_API_ENTRY vx_parameter VX_API_CALL vxGetParameterByIndex(vx_node node, vx_uint32 index);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseParameter(vx_parameter *param);
VX_API_ENTRY vx_status VX_API_CALL vxSetParameterByIndex(
	vx_node node, vx_uint32 index, vx_reference value);
VX_API_ENTRY vx_status VX_API_CALL vxSetParameterByReference(
	vx_parameter parameter, vx_reference value);
VX_API_ENTRY vx_status VX_API_CALL vxQueryParameter(
	vx_parameter parameter, vx_enum attribute, void *ptr, vx_size size);

/* User kernels */
VX_API_ENTRY vx_status VX_API_CALL vxLoadKernels(vx_context context, const vx_char *module);
VX_API_ENTRY vx_status VX_API_CALL vxUnloadKernels(vx_context context, const vx_char *module);
VX_API_ENTRY vx_status VX_API_CALL vxRegisterKernelLibrary(vx_context context,
	const vx_char *module, vx_publish_kernels_f publish, vx_unpublish_kernels_f unpublish);
VX_API_ENTRY vx_kernel VX_API_CALL vxAddUserKernel(vx_context context, const vx_char name[],
	vx_enum enumeration, vx_kernel_f func_ptr, vx_uint32 numParams,
	vx_kernel_validate_f validate, vx_kernel_initialize_f init,
	vx_kernel_deinitialize_f deinit);
VX_API_ENTRY vx_status VX_API_CALL vxFinalizeKernel(vx_kernel kernel);
VX_API_ENTRY vx_status VX_API_CALL vxAddParameterToKernel(
	vx_kernel kernel, vx_uint32 index, vx_enum dir, vx_enum data_type, vx_enum state);
VX_API_ENTRY vx_status VX_API_CALL vxRemoveKernel(vx_kernel kernel);
VX_API_ENTRY vx_status VX_API_CALL vxSetKernelAttribute(
	vx_kernel kernel, vx_enum attribute, const void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxSetMetaFormatAttribute(
	vx_meta_format meta, vx_enum attribute, const void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxQueryMetaFormatAttribute(
	vx_meta_format meta, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxSetMetaFormatFromReference(
	vx_meta_format meta, vx_reference exemplar);

/* Nodes */
VX_API_ENTRY vx_node VX_API_CALL vxCreateGenericNode(vx_graph graph, vx_kernel kernel);
VX_API_ENTRY vx_status VX_API_CALL vxQueryNode(
	vx_node node, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxSetNodeAttribute(
	vx_node node, vx_enum attribute, const void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseNode(vx_node *node);
VX_API_ENTRY vx_status VX_API_CALL vxRemoveNode(vx_node *node);
VX_API_ENTRY vx_status VX_API_CALL vxAssignNodeCallback(vx_node node, vx_nodecomplete_f callback);
VX_API_ENTRY vx_nodecomplete_f VX_API_CALL vxRetrieveNodeCallback(vx_node node);
VX_API_ENTRY vx_status VX_API_CALL vxSetNodeTarget(
	vx_node node, vx_enum target_enum, const char *target_string);
VX_API_ENTRY vx_status VX_API_CALL vxReplicateNode(
	vx_graph graph, vx_node first_node, vx_bool replicate[], vx_uint32 number_of_parameters);

/* Graphs */
VX_API_ENTRY vx_graph VX_API_CALL vxCreateGraph(vx_context context);
VX_API_ENTRY vx_status VX_API_CALL vxReleaseGraph(vx_graph *graph);
VX_API_ENTRY vx_status VX_API_CALL vxVerifyGraph(vx_graph graph);
VX_API_ENTRY vx_status VX_API_CALL vxProcessGraph(vx_graph graph);
VX_API_ENTRY vx_status VX_API_CALL vxScheduleGraph(vx_graph graph);
VX_API_ENTRY vx_status VX_API_CALL vxWaitGraph(vx_graph graph);
VX_API_ENTRY vx_status VX_API_CALL vxSetGraphAttribute(
	vx_graph graph, vx_enum attribute, const void *ptr, vx_size size);
VX_API_ENTRY vx_status VX_API_CALL vxQueryGraph(
	vx_graph graph, vx_enum attribute, void *ptr, vx_size size);
VX_API_ENTRY vx_bool VX_API_CALL vxIsGraphVerified(vx_graph graph);
VX_API_ENTRY vx_status VX_API_CALL vxAddParameterToGraph(vx_graph graph, vx_parameter parameter);
VX_API_ENTRY vx_status VX_API_CALL vxSetGraphParameterByIndex(
	vx_graph graph, vx_uint32 index, vx_reference value);
VX_API_ENTRY vx_parameter VX_API_CALL vxGetGraphParameterByIndex(vx_graph graph, vx_uint32 index);

#ifdef __cplusplus
}
#endif

#endif /* VX_API_H */
