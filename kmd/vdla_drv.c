// SPDX-License-Identifier: GPL-2.0-only
/*
 * vdla: DRM accel driver for the vDLA deep-learning accelerator.
 *
 * This file holds the PCI driver, the DRM driver and its ioctl table.
 */
#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rcupdate.h>

#include <drm/vdla_accel.h>

#include "vdla_core_ioctls.h"
#include "vdla_ctx.h"
#include "vdla_debugfs.h"
#include "vdla_device.h"
#include "vdla_drv.h"
#include "vdla_fence_ioctl.h"
#include "vdla_file.h"
#include "vdla_bo_ioctl.h"
#include "vdla_gem.h"
#include "vdla_irq.h"
#include "vdla_job.h"
#include "vdla_lease.h"
#include "vdla_pipeline.h"
#include "vdla_pipeline_ioctl.h"
#include "vdla_query.h"
#include "vdla_sched.h"
#include "vdla_selftest.h"

#define VDLA_IOCTL(n, func) \
	DRM_IOCTL_DEF_DRV(VDLA_##n, vdla_ioctl_##func, 0)

static const struct drm_ioctl_desc vdla_ioctls[] = {
	VDLA_IOCTL(QUERY, query),
	VDLA_IOCTL(TEST_IRQ, test_irq),
	VDLA_IOCTL(TEST_BDMA, test_bdma),
	VDLA_IOCTL(BO_CREATE, bo_create),
	VDLA_IOCTL(BO_INFO, bo_info),
	VDLA_IOCTL(BO_WAIT, bo_wait),
	VDLA_IOCTL(BO_IMPORT, bo_import),
	VDLA_IOCTL(CTX_CREATE, ctx_create),
	VDLA_IOCTL(CTX_DESTROY, ctx_destroy),
	VDLA_IOCTL(CTX_QUERY, ctx_query),
	VDLA_IOCTL(SUBMIT, submit),
	VDLA_IOCTL(FENCE_WAIT, fence_wait),
	VDLA_IOCTL(FENCE_EXPORT, fence_export),
	VDLA_IOCTL(LEASE_ACQUIRE, lease_acquire),
	VDLA_IOCTL(LEASE_RELEASE, lease_release),
	VDLA_IOCTL(LEASE_QUERY, lease_query),
	VDLA_IOCTL(PIPELINE_CREATE, pipeline_create),
	VDLA_IOCTL(PIPELINE_OPEN, pipeline_open),
	VDLA_IOCTL(PIPELINE_DESTROY, pipeline_destroy),
	VDLA_IOCTL(PIPELINE_CLOSE, pipeline_close),
	VDLA_IOCTL(PIPELINE_QUERY, pipeline_query),
	VDLA_IOCTL(PIPELINE_SET_EXIT, pipeline_set_exit),
	VDLA_IOCTL(CHANNEL_CREATE, channel_create),
	VDLA_IOCTL(CHANNEL_DUP, channel_dup),
	VDLA_IOCTL(CHANNEL_DESTROY, channel_destroy),
	VDLA_IOCTL(CHANNEL_ATTR, channel_attr),
	VDLA_IOCTL(PORT_BUFFER, port_buffer),
};

/*
 * The file's leases and pipeline handles stop sending events before the
 * DRM core releases them (it does so before postclose, where they end).
 */
static int vdla_release(struct inode *inode, struct file *filp)
{
	struct drm_file *file = filp->private_data;

	vdla_lease_file_closing(file->driver_priv);
	vdla_pipeline_file_closing(file->driver_priv);
	return drm_release(inode, filp);
}

/* DRM_ACCEL_FOPS, with the core's ioctls filtered (vdla_core_ioctls.c). */
static const struct file_operations vdla_accel_fops = {
	.owner = THIS_MODULE,
	.open = accel_open,
	.release = vdla_release,
	.unlocked_ioctl = vdla_accel_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl = vdla_accel_compat_ioctl,
#endif
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	.fop_flags = FOP_UNSIGNED_OFFSET,
	.show_fdinfo = drm_show_fdinfo,
};

/*
 * UAPI version history:
 * 1.0 - QUERY (DEVICE) and TEST_IRQ.
 * 1.1 - TEST_BDMA; hardware 2.0 (engines, MMU, SRAM).
 * 1.2 - BOs, contexts, SUBMIT, syncobjs, CTX_QUERY.
 * 1.3 - SUBMIT flag DRM_VDLA_SUBMIT_OP_STATS: per-operation statistics.
 * 1.4 - SRAM BOs (DRM_VDLA_BO_CREATE_SRAM) and QUERY MEMORY.
 * 1.5 - QUERY COMPUTE: the host compute path of hardware 2.1.
 * 1.6 - The node offers what a render node does of the DRM core's ioctls
 *       (EACCES for the rest); syncobj arrays of at most 1024 per call.
 * 1.7 - A job runs the task SUBMIT checked (a later rewrite of the
 *       descriptor changes nothing); SUBMIT flag DRM_VDLA_SUBMIT_OP_TIME_ONLY;
 *       hardware 3.1.
 * 1.8 - FENCE_WAIT: a syncobj point's wait, error and time in one call.
 * 1.9 - FENCE_EXPORT: a timeline point as a sync file with its job's error;
 *       SUBMIT flag DRM_VDLA_SUBMIT_NO_IMPLICIT: explicit synchronisation.
 * 1.10 - Leases (LEASE_ACQUIRE, LEASE_RELEASE, LEASE_QUERY, lease events) on
 *       SRAM partitions (QUERY SRAM_PARTITIONS; BO_CREATE and SUBMIT
 *       lease_id); SUBMIT frame brackets.
 * 1.11 - Device-time shares: leases on DRM_VDLA_RESOURCE_TIME_SHARE, QUERY
 *       TIME_SHARES, sysfs time_shares; SUBMIT naming another context's
 *       share joins it.
 */
static const struct drm_driver vdla_drm_driver = {
	.driver_features = DRIVER_COMPUTE_ACCEL | DRIVER_GEM | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.fops = &vdla_accel_fops,
	.open = vdla_open,
	.postclose = vdla_postclose,
	.show_fdinfo = vdla_show_fdinfo,
	.gem_create_object = vdla_gem_create_object,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
	.ioctls = vdla_ioctls,
	.num_ioctls = ARRAY_SIZE(vdla_ioctls),
	.name = "vdla",
	.desc = "vDLA deep-learning accelerator",
	.major = VDLA_DRIVER_MAJOR,
	.minor = VDLA_DRIVER_MINOR,
	.patchlevel = VDLA_DRIVER_PATCHLEVEL,
};

static int vdla_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vdla_device *vdev;
	int ret;

	vdev = devm_drm_dev_alloc(&pdev->dev, &vdla_drm_driver, struct vdla_device, drm);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	vdev->pdev = pdev;
	pci_set_drvdata(pdev, vdev);

	ret = vdla_device_init(vdev);
	if (ret)
		return ret;

	vdla_debugfs_init(vdev);
	ret = drm_dev_register(&vdev->drm, 0);
	if (ret) {
		drm_err(&vdev->drm, "cannot register the accel device: %d\n", ret);
		goto err_device_fini;
	}
	vdla_debugfs_register(vdev);
	return 0;

err_device_fini:
	vdla_device_fini(vdev);
	return ret;
}

/*
 * Unbind or hot-unplug, perhaps with files open and jobs running, queued
 * or waiting for fences that never signal. drm_dev_unplug() removes the
 * node and waits for the ioctls inside drm_dev_enter() (SUBMIT among them);
 * then every job that has not ended ends with ENODEV and nothing touches
 * the registers again. What the files hold goes when they close; the
 * vdla_device goes with the last of them and of the jobs.
 */
static void vdla_remove(struct pci_dev *pdev)
{
	struct vdla_device *vdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&vdev->drm);
	vdla_device_fini(vdev);
}

static const struct pci_device_id vdla_pci_ids[] = {
	{ PCI_DEVICE(VDLA_PCI_VENDOR_ID, VDLA_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vdla_pci_ids);

static struct pci_driver vdla_pci_driver = {
	.name = "vdla",
	.id_table = vdla_pci_ids,
	.probe = vdla_probe,
	.remove = vdla_remove,
};

static int __init vdla_init(void)
{
	int ret = vdla_sched_module_init();

	if (ret)
		return ret;
	ret = vdla_lease_module_init();
	if (ret)
		goto out_sched;
	ret = pci_register_driver(&vdla_pci_driver);
	if (ret)
		goto out_lease;
	return 0;

out_lease:
	vdla_lease_module_exit();
out_sched:
	vdla_sched_module_exit();
	return ret;
}

static void __exit vdla_exit(void)
{
	pci_unregister_driver(&vdla_pci_driver);
	vdla_lease_module_exit();
	vdla_sched_module_exit();
	/* The fence whose RCU callback dropped the last module reference (vdla_fence.c). */
	rcu_barrier();
}

module_init(vdla_init);
module_exit(vdla_exit);

MODULE_DESCRIPTION("vDLA deep-learning accelerator driver");
MODULE_LICENSE("GPL");
