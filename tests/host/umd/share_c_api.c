/* SPDX-License-Identifier: MIT */
/*
 * The C API of sharing (vdla/vdla_share.h), compiled as C: lists, their
 * reconciliation and conflicts, outputs, errors with their reasons, and
 * lists crossing to a child process. Each function returns NULL when all
 * went well, else what failed (share_c_api_test.cpp reports it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vdla/vdla_share.h>

#include "c_expect.h"

static vdla_attr_list *tensor_list(const char *owner, uint64_t h, uint64_t w)
{
	vdla_attr_list *l = vdla_attr_list_create(owner);
	const enum vdla_buffer_type type = VDLA_BUFFER_TENSOR;
	const uint64_t dims[] = { 1, h, w, 3 };
	const struct vdla_accessor cpu = { VDLA_ACCESSOR_CPU, 0, NULL };
	if (vdla_attr_list_set_types(l, &type, 1) || vdla_attr_list_set_tensor_dims(l, dims, 4)
		|| vdla_attr_list_set_tensor_data_type(l, VDLA_TENSOR_UINT8)
		|| vdla_attr_list_set_tensor_layout(l, VDLA_LAYOUT_NHWC)
		|| vdla_attr_list_set_accessors(l, &cpu, 1)) {
		vdla_attr_list_free(l);
		return NULL;
	}
	return l;
}

const char *share_c_api_lists(void)
{
	vdla_attr_list *camera = vdla_attr_list_create("camera");
	const enum vdla_buffer_type image = VDLA_BUFFER_IMAGE;
	const enum vdla_color_format rgb = VDLA_COLOR_RGB888;
	const uint64_t side = 224, pitch = 64;
	EXPECT(vdla_attr_list_set_tensor_dims(camera, &side, 1) == -EINVAL);
	EXPECT(strstr(vdla_last_error(), "General.Types") != NULL);
	EXPECT(vdla_attr_list_set_types(camera, &image, 1) == 0);
	EXPECT(vdla_attr_list_set_types(camera, &image, 1) == -EEXIST);
	EXPECT(vdla_attr_list_set_image_plane_formats(camera, &rgb, 1) == 0);
	EXPECT(vdla_attr_list_set_image_plane_widths(camera, &side, 1) == 0);
	EXPECT(vdla_attr_list_set_image_plane_heights(camera, &side, 1) == 0);
	EXPECT(vdla_attr_list_set_image_pitch_alignment(camera, &pitch, 1) == 0);
	EXPECT(vdla_attr_list_set_required_permission(camera, (enum vdla_permission)7) == -EINVAL);
	/* A count no memory can hold: an error, not an exception through C. */
	EXPECT(vdla_attr_list_set_image_plane_widths(camera, &side, (size_t)1 << 40) == -ENOMEM);
	EXPECT(strcmp(vdla_last_error(), "out of memory") == 0);

	vdla_attr_list *classifier = tensor_list("classifier", 224, 224);
	EXPECT(classifier != NULL);
	const vdla_attr_list *lists[] = { camera, classifier };
	vdla_attr_list *reconciled = NULL;
	char *conflicts = NULL;
	EXPECT(vdla_reconcile(lists, 2, "pipeline", &reconciled, &conflicts) == 0);
	EXPECT(conflicts == NULL && reconciled != NULL);
	EXPECT(vdla_attr_list_reconciled(reconciled));
	uint64_t strides[4], size = 0;
	size_t count = 4;
	EXPECT(vdla_attr_list_get_tensor_strides(reconciled, strides, &count) == 0);
	EXPECT(count == 4 && strides[0] == 704 * 224 && strides[1] == 704 && strides[2] == 3
		&& strides[3] == 1);
	count = 2;
	EXPECT(vdla_attr_list_get_tensor_strides(reconciled, strides, &count) == -ENOSPC);
	EXPECT(count == 4);
	struct vdla_plane_layout plane;
	count = 1;
	EXPECT(vdla_attr_list_get_image_planes(reconciled, &plane, &count) == 0);
	EXPECT(plane.pitch == 704 && plane.offset == 0 && plane.width == 224);
	EXPECT(vdla_attr_list_get_size(reconciled, &size) == 0 && size == 704 * 224);
	EXPECT(vdla_attr_list_get_size(camera, &size) == -ENOENT);
	EXPECT(vdla_attr_list_set_raw_size(reconciled, 1) == -EACCES);

	/* A tensor of another size: the conflict's text, and no list. */
	vdla_attr_list *wrong = tensor_list("wrong", 256, 256);
	const vdla_attr_list *clash[] = { classifier, wrong };
	vdla_attr_list *none = NULL;
	EXPECT(vdla_reconcile(clash, 2, "pipeline", &none, &conflicts) == 1);
	EXPECT(none == NULL && conflicts != NULL);
	EXPECT(strcmp(conflicts, "Tensor.Dims must be equal: classifier [1,224,224,3], "
				 "wrong [1,256,256,3]\n")
		== 0);
	free(conflicts);
	const vdla_attr_list *nothing[] = { NULL };
	EXPECT(vdla_reconcile(nothing, 1, "x", &none, &conflicts) == -EINVAL);

	vdla_attr_list_free(wrong);
	vdla_attr_list_free(reconciled);
	vdla_attr_list_free(classifier);
	vdla_attr_list_free(camera);
	return NULL;
}

const char *share_c_api_sync_and_ipc(void)
{
	vdla_sync_attr_list *signaler = vdla_sync_attr_list_create("producer");
	const struct vdla_accessor dla = { VDLA_ACCESSOR_DLA, 0, NULL };
	const struct vdla_accessor other = { VDLA_ACCESSOR_OTHER, 0, "display" };
	EXPECT(vdla_sync_attr_list_set_required_permission(signaler, VDLA_SYNC_SIGNAL_ONLY) == 0);
	EXPECT(vdla_sync_attr_list_set_accessor(signaler, other) == -EINVAL);
	EXPECT(vdla_sync_attr_list_set_accessor(signaler, dla) == 0);

	vdla_ipc_endpoint *parent = NULL, *child = NULL;
	EXPECT(vdla_ipc_pair(&parent, &child) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		vdla_sync_attr_list *waiter = vdla_sync_attr_list_create("viewer");
		const struct vdla_accessor cpu = { VDLA_ACCESSOR_CPU, 0, NULL };
		int ret = vdla_sync_attr_list_set_required_permission(waiter, VDLA_SYNC_WAIT_ONLY)
			  || vdla_sync_attr_list_set_accessor(waiter, cpu)
			  || vdla_sync_attr_list_send(child, waiter);
		_exit(ret ? 1 : 0);
	}
	vdla_sync_attr_list *waiter = NULL;
	EXPECT(vdla_sync_attr_list_receive(parent, 5000, &waiter) == 0);
	int status = 0;
	waitpid(pid, &status, 0);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	const vdla_sync_attr_list *lists[] = { signaler, waiter };
	vdla_sync_attr_list *reconciled = NULL;
	char *conflicts = NULL;
	EXPECT(vdla_sync_reconcile(lists, 2, "pipeline", &reconciled, &conflicts) == 0);
	const vdla_sync_attr_list *alone[] = { signaler };
	vdla_sync_attr_list *none = NULL;
	EXPECT(vdla_sync_reconcile(alone, 1, "x", &none, &conflicts) == 1);
	EXPECT(strstr(conflicts, "needs at least one waiter") != NULL);
	free(conflicts);

	/* The child is gone: its end closed, receive says so. */
	vdla_ipc_endpoint_free(child);
	vdla_attr_list *list = NULL;
	EXPECT(vdla_attr_list_receive(parent, 1000, &list) == -EPIPE);
	EXPECT(vdla_ipc_connect("/nonexistent/vdla", &child) == -ENOENT);

	vdla_ipc_endpoint_free(parent);
	vdla_sync_attr_list_free(reconciled);
	vdla_sync_attr_list_free(waiter);
	vdla_sync_attr_list_free(signaler);
	return NULL;
}
