// SPDX-License-Identifier: MIT
/*
 * vDLA PCI device: QEMU glue around the device core in core/.
 *
 * This file only connects QEMU's PCI, MMIO, MSI-X and clock services to the
 * core; everything the device does is in core/ and specified in
 * docs/hw-spec.md.
 */
#include "qemu/osdep.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci_device.h"
#include "hw/qdev-properties.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qom/object.h"

#include "core/vdla_core.h"
#include "core/vdla_regs.h"

#define TYPE_VDLA "vdla"
OBJECT_DECLARE_SIMPLE_TYPE(VdlaState, VDLA)

struct VdlaState {
	PCIDevice parent_obj;

	MemoryRegion mmio;
	struct vdla_core *core;
};

static void vdla_raise_irq(void *opaque, unsigned int vector)
{
	VdlaState *s = opaque;
	PCIDevice *pdev = PCI_DEVICE(s);

	if (msix_enabled(pdev))
		msix_notify(pdev, vector);
}

static uint64_t vdla_clock_ns(void *opaque)
{
	return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void G_GNUC_PRINTF(2, 0) vdla_guest_error(void *opaque, const char *fmt, va_list args)
{
	g_autofree char *msg = g_strdup_vprintf(fmt, args);

	qemu_log_mask(LOG_GUEST_ERROR, "%s", msg);
}

static uint64_t vdla_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
	VdlaState *s = opaque;

	return vdla_core_mmio_read(s->core, addr, size);
}

static void vdla_mmio_write(void *opaque, hwaddr addr, uint64_t val, unsigned size)
{
	VdlaState *s = opaque;

	vdla_core_mmio_write(s->core, addr, val, size);
}

static const MemoryRegionOps vdla_mmio_ops = {
	.read = vdla_mmio_read,
	.write = vdla_mmio_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	/* Let every size through so that the core can log misuse. */
	.valid = { .min_access_size = 1, .max_access_size = 8 },
	.impl = { .min_access_size = 1, .max_access_size = 8 },
};

static void vdla_realize(PCIDevice *pdev, Error **errp)
{
	VdlaState *s = VDLA(pdev);
	const struct vdla_core_host host = {
		.opaque = s,
		.raise_irq = vdla_raise_irq,
		.clock_ns = vdla_clock_ns,
		.guest_error = vdla_guest_error,
	};

	s->core = vdla_core_create(&host);
	if (!s->core) {
		error_setg(errp, "vdla: could not create the device core");
		return;
	}

	memory_region_init_io(&s->mmio, OBJECT(s), &vdla_mmio_ops, s, "vdla-mmio",
			      VDLA_MMIO_SIZE);
	pci_register_bar(pdev, VDLA_BAR_MMIO,
			 PCI_BASE_ADDRESS_SPACE_MEMORY | PCI_BASE_ADDRESS_MEM_TYPE_64,
			 &s->mmio);

	if (msix_init_exclusive_bar(pdev, VDLA_MSIX_VECTORS, VDLA_BAR_MSIX, errp)) {
		vdla_core_destroy(s->core);
		s->core = NULL;
		return;
	}
	for (unsigned int i = 0; i < VDLA_MSIX_VECTORS; i++)
		msix_vector_use(pdev, i);
}

static void vdla_exit(PCIDevice *pdev)
{
	VdlaState *s = VDLA(pdev);

	msix_uninit_exclusive_bar(pdev);
	vdla_core_destroy(s->core);
	s->core = NULL;
}

static void vdla_reset_hold(Object *obj, ResetType type)
{
	VdlaState *s = VDLA(obj);

	vdla_core_reset(s->core);
}

static void vdla_class_init(ObjectClass *klass, void *data)
{
	DeviceClass *dc = DEVICE_CLASS(klass);
	PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
	ResettableClass *rc = RESETTABLE_CLASS(klass);

	k->realize = vdla_realize;
	k->exit = vdla_exit;
	k->vendor_id = VDLA_PCI_VENDOR_ID;
	k->device_id = VDLA_PCI_DEVICE_ID;
	k->revision = VDLA_PCI_REVISION;
	k->class_id = VDLA_PCI_CLASS;
	rc->phases.hold = vdla_reset_hold;
	dc->desc = "vDLA deep-learning accelerator";
	set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo vdla_types[] = {
	{
		.name = TYPE_VDLA,
		.parent = TYPE_PCI_DEVICE,
		.instance_size = sizeof(VdlaState),
		.class_init = vdla_class_init,
		.interfaces = (InterfaceInfo[]) {
			{ INTERFACE_CONVENTIONAL_PCI_DEVICE },
			{ },
		},
	},
};

DEFINE_TYPES(vdla_types)
