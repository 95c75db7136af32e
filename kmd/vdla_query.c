// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM_IOCTL_VDLA_QUERY: structured information for userspace. The caller's
 * size and the driver's may differ, so that the structures can grow: an
 * older caller gets the prefix it knows, a newer one zeros in the fields
 * this driver does not have (as panthor and copy_struct_to_user do).
 */
#include <drm/drm_print.h>
#include <linux/uaccess.h>

#include <drm/vdla_accel.h>

#include "vdla_device.h"
#include "vdla_drv.h"
#include "vdla_query.h"

static void vdla_fill_query_device(struct vdla_device *vdev,
				   struct drm_vdla_query_device *info)
{
	struct pci_dev *pdev = vdev->pdev;

	memset(info, 0, sizeof(*info));
	info->pci_vendor_id = pdev->vendor;
	info->pci_device_id = pdev->device;
	info->pci_revision = pdev->revision;
	info->hw_version = vdev->hw_version;
	info->hw_caps = vdev->hw_caps;
	info->irq_vectors = vdev->irq_vectors;
	info->driver_major = VDLA_DRIVER_MAJOR;
	info->driver_minor = VDLA_DRIVER_MINOR;
	info->driver_patch = VDLA_DRIVER_PATCHLEVEL;
	info->pci_domain = pci_domain_nr(pdev->bus);
	info->pci_bus = (pci_domain_nr(pdev->bus) << 16) | (pdev->bus->number << 8) |
			pdev->devfn;
}

static void vdla_fill_query_memory(struct vdla_device *vdev,
				   struct drm_vdla_query_memory *info)
{
	struct vdla_sram_usage usage;

	vdla_sram_usage(vdev, &usage);
	memset(info, 0, sizeof(*info));
	info->sram_base = usage.size ? DRM_VDLA_SRAM_BASE : 0;
	info->sram_size = usage.size;
	info->sram_free = usage.free;
	info->sram_largest_free = usage.largest_free;
}

static void vdla_fill_query_compute(struct vdla_device *vdev,
				    struct drm_vdla_query_compute *info)
{
	memset(info, 0, sizeof(*info));
	info->path = VDLA_COMPUTE_PATH(vdev->hw_compute);
	info->float_isa = VDLA_COMPUTE_FLOAT_ISA(vdev->hw_compute);
}

int vdla_ioctl_query(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct drm_vdla_query *args = data;
	union {
		struct drm_vdla_query_device device;
		struct drm_vdla_query_memory memory;
		struct drm_vdla_query_compute compute;
		struct drm_vdla_query_sram_partitions partitions;
		struct drm_vdla_query_time_shares shares;
	} info;
	u32 size;

	if (args->flags || args->pad) {
		drm_dbg(&vdev->drm, "QUERY: flags 0x%x / pad 0x%x must be zero\n",
			args->flags, args->pad);
		return -EINVAL;
	}
	switch (args->query) {
	case DRM_VDLA_QUERY_DEVICE:
		size = sizeof(info.device);
		break;
	case DRM_VDLA_QUERY_MEMORY:
		size = sizeof(info.memory);
		break;
	case DRM_VDLA_QUERY_COMPUTE:
		size = sizeof(info.compute);
		break;
	case DRM_VDLA_QUERY_SRAM_PARTITIONS:
		size = sizeof(info.partitions);
		break;
	case DRM_VDLA_QUERY_TIME_SHARES:
		size = sizeof(info.shares);
		break;
	default:
		drm_dbg(&vdev->drm, "QUERY: unknown query %u\n", args->query);
		return -EINVAL;
	}

	if (args->size == 0) {
		args->size = size;
		return 0;
	}
	if (args->size > PAGE_SIZE) {
		drm_dbg(&vdev->drm, "QUERY: size %u is above a page, no structure of ours\n",
			args->size);
		return -EINVAL;
	}

	switch (args->query) {
	case DRM_VDLA_QUERY_DEVICE:
		vdla_fill_query_device(vdev, &info.device);
		break;
	case DRM_VDLA_QUERY_MEMORY:
		vdla_fill_query_memory(vdev, &info.memory);
		break;
	case DRM_VDLA_QUERY_COMPUTE:
		vdla_fill_query_compute(vdev, &info.compute);
		break;
	case DRM_VDLA_QUERY_SRAM_PARTITIONS:
		vdla_sram_partitions(vdev, &info.partitions);
		break;
	case DRM_VDLA_QUERY_TIME_SHARES:
		vdla_sched_query_shares(vdev, &info.shares);
		break;
	}
	if (copy_to_user(u64_to_user_ptr(args->data), &info, min(args->size, size)))
		return -EFAULT;
	if (args->size > size &&
	    clear_user(u64_to_user_ptr(args->data) + size, args->size - size))
		return -EFAULT;
	args->size = size;
	return 0;
}
