// SPDX-License-Identifier: GPL-2.0-only
/*
 * Interrupts: MSI-X vector 0 carries the global INT_STATUS bits.
 *
 * The hard handler only acknowledges the device and records the bits; the
 * threaded handler acts on them: the firmware core's dla_isr_handler runs in
 * the hard half, dla_process_events (through the scheduler, which signals
 * the fences of jobs that ended) in the thread.
 */
#include <drm/drm_drv.h>
#include <drm/drm_print.h>
#include <linux/capability.h>
#include <linux/interrupt.h>

#include <drm/vdla_accel.h>

#include "vdla_device.h"
#include "vdla_irq.h"
#include "vdla_sched.h"
#include "dla_interface.h"

/*
 * The TEST bit is the driver's own; the firmware core's handler reads
 * INT_STATUS, takes the engine and MMU bits (it only records them: the
 * thread acts) and gives the driver the rest, so the register is read once.
 */
static irqreturn_t vdla_irq_hard(int irq, void *arg)
{
	struct vdla_device *vdev = arg;
	u32 status = dla_isr_handler(vdev->fw_engine);

	if (!status)
		return IRQ_NONE;

	if (status & VDLA_INT_TEST)
		vdla_write(vdev, VDLA_REG_INT_STATUS, VDLA_INT_TEST);
	atomic_or(status, &vdev->irq_pending);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t vdla_irq_thread(int irq, void *arg)
{
	struct vdla_device *vdev = arg;
	u32 pending = atomic_xchg(&vdev->irq_pending, 0);

	if (pending & VDLA_INT_TEST) {
		vdev->test_irq_time = ktime_get();
		complete(&vdev->test_irq_done);
	}
	if (pending & ~VDLA_INT_TEST)
		vdla_sched_irq(vdev);
	return IRQ_HANDLED;
}

int vdla_irq_init(struct vdla_device *vdev)
{
	struct pci_dev *pdev = vdev->pdev;
	int ret;

	ret = pci_alloc_irq_vectors(pdev, VDLA_MSIX_VECTORS, VDLA_MSIX_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0) {
		drm_err(&vdev->drm, "cannot allocate %d MSI-X vector(s): %d\n",
			VDLA_MSIX_VECTORS, ret);
		return ret;
	}

	vdev->irq = pci_irq_vector(pdev, VDLA_MSIX_VECTOR_GLOBAL);
	ret = devm_request_threaded_irq(&pdev->dev, vdev->irq, vdla_irq_hard,
					vdla_irq_thread, 0, dev_name(&pdev->dev), vdev);
	if (ret) {
		drm_err(&vdev->drm, "cannot request irq %d: %d\n", vdev->irq, ret);
		return ret;
	}

	vdla_write(vdev, VDLA_REG_INT_ENABLE, VDLA_DRIVER_INTERRUPTS);
	return 0;
}

void vdla_irq_fini(struct vdla_device *vdev)
{
	vdla_write(vdev, VDLA_REG_INT_ENABLE, 0);
	synchronize_irq(vdev->irq);
}

static int vdla_test_irq_check_args(struct vdla_device *vdev,
				    const struct drm_vdla_test_irq *args)
{
	if (args->flags & ~DRM_VDLA_TEST_IRQ_FLAGS) {
		drm_dbg(&vdev->drm, "TEST_IRQ: unknown flags 0x%x\n",
			args->flags & ~DRM_VDLA_TEST_IRQ_FLAGS);
		return -EINVAL;
	}
	if (!args->timeout_ms || args->timeout_ms > DRM_VDLA_TEST_IRQ_MAX_TIMEOUT_MS) {
		drm_dbg(&vdev->drm, "TEST_IRQ: timeout_ms %u outside 1..%u\n",
			args->timeout_ms, DRM_VDLA_TEST_IRQ_MAX_TIMEOUT_MS);
		return -EINVAL;
	}
	return 0;
}

/*
 * Raises VDLA_INT_TEST and waits for the threaded handler. With delivery
 * masked the bit stays pending in INT_STATUS, so it is acknowledged before
 * delivery is enabled again; otherwise enabling would send the message late.
 */
static int vdla_test_irq_run(struct vdla_device *vdev, struct drm_vdla_test_irq *args)
{
	bool masked = args->flags & DRM_VDLA_TEST_IRQ_FLAG_MASKED;
	long left;
	ktime_t start;

	/*
	 * INT_ENABLE is written under fw_lock, as the reset path writes it:
	 * a reset between the two writes here must not be undone by them.
	 */
	reinit_completion(&vdev->test_irq_done);
	if (masked) {
		mutex_lock(&vdev->fw_lock);
		vdla_write(vdev, VDLA_REG_INT_ENABLE, VDLA_DRIVER_INTERRUPTS & ~VDLA_INT_TEST);
		mutex_unlock(&vdev->fw_lock);
	}

	start = ktime_get();
	vdla_write(vdev, VDLA_REG_INT_SET, VDLA_INT_TEST);
	left = wait_for_completion_interruptible_timeout(&vdev->test_irq_done,
							 msecs_to_jiffies(args->timeout_ms));
	if (masked) {
		mutex_lock(&vdev->fw_lock);
		vdla_write(vdev, VDLA_REG_INT_STATUS, VDLA_INT_TEST);
		vdla_write(vdev, VDLA_REG_INT_ENABLE, VDLA_DRIVER_INTERRUPTS);
		mutex_unlock(&vdev->fw_lock);
	}

	if (left < 0)
		return left;
	if (left == 0)
		return -ETIMEDOUT;
	args->latency_ns = ktime_to_ns(ktime_sub(vdev->test_irq_time, start));
	return 0;
}

int vdla_ioctl_test_irq(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct drm_vdla_test_irq *args = data;
	int ret, idx;

	/* A test of the interrupt path, not a service: administrators only. */
	if (!capable(CAP_SYS_ADMIN)) {
		drm_dbg(drm, "TEST_IRQ: needs CAP_SYS_ADMIN\n");
		return -EACCES;
	}
	ret = vdla_test_irq_check_args(vdev, args);
	if (ret)
		return ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	ret = mutex_lock_interruptible(&vdev->test_irq_lock);
	if (!ret) {
		ret = vdla_test_irq_run(vdev, args);
		mutex_unlock(&vdev->test_irq_lock);
	}

	drm_dev_exit(idx);
	return ret;
}
