// SPDX-License-Identifier: MIT
/*
 * vDLA PCI device: QEMU glue around the device core in core/.
 *
 * This file only connects QEMU's PCI, MMIO, MSI-X, DMA and clock services to
 * the core; everything the device does is in core/ and specified in
 * docs/hw-spec.md. The core computes on its own worker threads, so the
 * services here are safe to call without the big lock: DMA is limited to
 * guest RAM (never another device's MMIO, which would need the lock), and
 * a worker that raises an interrupt takes the lock just for the message.
 */
#include "qemu/osdep.h"
#include "exec/memory.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci_device.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qemu/atomic.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/rcu.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "system/dma.h"

#include "core/vdla_core.h"
#include "vdla_regs.h"
#include "trace.h"

#define TYPE_VDLA "vdla"
OBJECT_DECLARE_SIMPLE_TYPE(VdlaState, VDLA)

struct VdlaState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion sram;
    struct vdla_core *core;
    struct vdla_core_config config;
    char *compute_path;         /* x-compute-path: a path name or "auto" */

    /*
     * Workers inside vdla_raise_irq, and whether the device is going away.
     * See vdla_raise_irq and vdla_stop_raisers.
     */
    unsigned int raisers;
    bool exiting;
};

/*
 * Big lock held. A vCPU's RESET write holds it too: a message a worker
 * asked for before a reset that got the lock first is dropped here, since
 * the reset cleared what it was for.
 */
static void vdla_send_message(VdlaState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (msix_enabled(pdev) && vdla_core_interrupt_due(s->core)) {
        msix_notify(pdev, VDLA_MSIX_VECTOR_GLOBAL);
    }
}

/*
 * Sends the message from the calling thread: an MMIO access (big lock
 * held) or a worker, which takes the lock for the message. Sending it
 * directly instead of through a bottom half saves a wake-up of the main
 * loop per operation (docs/hw-spec.md, "Implementation notes").
 *
 * A worker waiting for the lock must not stop vdla_exit, which holds it
 * while it joins the workers: the raisers count and exiting flag form a
 * handshake (both sides write, full barrier, then read the other) so that
 * after vdla_stop_raisers no worker takes the lock again.
 */
static void vdla_raise_irq(void *opaque, unsigned int vector)
{
    VdlaState *s = opaque;

    if (bql_locked()) {
        vdla_send_message(s);
        return;
    }
    qatomic_inc(&s->raisers);
    if (!qatomic_read(&s->exiting)) {
        bql_lock();
        vdla_send_message(s);
        bql_unlock();
    }
    qatomic_dec(&s->raisers);
}

/* Lets the workers inside vdla_raise_irq finish; big lock held. */
static void vdla_stop_raisers(VdlaState *s)
{
    qatomic_xchg(&s->exiting, true);
    while (qatomic_read(&s->raisers)) {
        bql_unlock();
        g_usleep(100);
        bql_lock();
    }
}

/*
 * Workers are QEMU threads: named (with -name debug-threads=on) and with
 * the signals QEMU handles in its main loop blocked.
 */
static int vdla_thread_create(void *opaque, const char *name,
                              void *(*fn)(void *), void *arg, void **thread)
{
    QemuThread *t = g_new0(QemuThread, 1);

    qemu_thread_create(t, name, fn, arg, QEMU_THREAD_JOINABLE);
    *thread = t;
    return 0;
}

static void vdla_thread_join(void *opaque, void *thread)
{
    qemu_thread_join(thread);
    g_free(thread);
}

static void vdla_trace(void *opaque, const struct vdla_trace *event)
{
    switch (event->kind) {
    case VDLA_TRACE_OP_START:
        trace_vdla_op_start(event->engine, event->group);
        break;
    case VDLA_TRACE_OP_END:
        trace_vdla_op_end(event->engine, event->group, event->error, event->value);
        break;
    case VDLA_TRACE_MMU_FAULT:
        trace_vdla_mmu_fault(event->engine, event->group, event->error,
                             event->value);
        break;
    case VDLA_TRACE_IRQ:
        trace_vdla_irq(event->value);
        break;
    case VDLA_TRACE_RESET:
        trace_vdla_reset(event->value);
        break;
    }
}

static uint64_t vdla_clock_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void G_GNUC_PRINTF(2, 0) vdla_guest_error(void *opaque, const char *fmt,
                                                 va_list args)
{
    g_autofree char *msg = g_strdup_vprintf(fmt, args);

    qemu_log_mask(LOG_GUEST_ERROR, "%s", msg);
}

/*
 * The engine workers read and write guest memory through QEMU's memory API,
 * whose maps are freed through RCU: an unregistered thread inside
 * address_space_translate could see its map freed under it when the guest
 * changes the memory layout (a QEMU crash seen once at boot, in
 * address_space_translate_internal). Workers register for their lifetime.
 */
static void vdla_thread_start(void *opaque)
{
    rcu_register_thread();
}

static void vdla_thread_stop(void *opaque)
{
    rcu_unregister_thread();
}

/* Whether [addr, addr + len) is guest RAM, writable. */
static bool vdla_dma_valid(void *opaque, uint64_t addr, uint64_t len)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(opaque));

    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, piece = len;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &piece,
                                                   true,
                                                   MEMTXATTRS_UNSPECIFIED);

        if (!memory_region_is_ram(mr) || memory_region_is_rom(mr) ||
            piece == 0) {
            return false;
        }
        addr += piece;
        len -= piece;
    }
    return true;
}

/*
 * DMA never dispatches to MMIO, which would take the big lock: a worker
 * waiting for it while holding the core's commit lock would deadlock with
 * a vCPU resetting the device, and one waiting for it at all with
 * vdla_exit joining the workers. Reads are restricted to memory by the
 * transaction attribute; writes go only through direct maps of RAM.
 */
static int vdla_dma_read(void *opaque, uint64_t addr, void *buf,
                         uint64_t len)
{
    MemTxAttrs attrs = { .memory = 1 };

    if (!vdla_dma_valid(opaque, addr, len)) {
        return -1;
    }
    return pci_dma_rw(PCI_DEVICE(opaque), addr, buf, len,
                      DMA_DIRECTION_TO_DEVICE, attrs) == MEMTX_OK ? 0 : -1;
}

/*
 * address_space_map gives a pointer into RAM, or for anything else a
 * bounce buffer that unmapping would write through the memory API (and
 * so possibly the big lock): that case is released unwritten and fails.
 * A map for reading (an input read in place) fills its bounce buffer at
 * once: only a range that is RAM is asked for, and the memory attribute
 * keeps the fill from reaching MMIO if the map changed in between.
 */
static void *vdla_dma_map(void *opaque, uint64_t addr, uint64_t len,
                          bool write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(opaque));
    MemTxAttrs attrs = { .memory = !write };
    hwaddr plen = len;
    ram_addr_t offset;
    void *ptr;

    if (!write && !vdla_dma_valid(opaque, addr, len)) {
        return NULL;
    }
    ptr = address_space_map(as, addr, &plen, write, attrs);

    if (!ptr) {
        return NULL;
    }
    if (plen != len || !memory_region_from_host(ptr, &offset)) {
        address_space_unmap(as, ptr, plen, write, 0);
        return NULL;
    }
    return ptr;
}

static void vdla_dma_unmap(void *opaque, void *ptr, uint64_t len, bool write,
                           uint64_t written)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(opaque));

    address_space_unmap(as, ptr, len, write, written);
}

static uint64_t vdla_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    VdlaState *s = opaque;
    uint64_t value = vdla_core_mmio_read(s->core, addr, size);

    trace_vdla_mmio_read(addr, value);
    return value;
}

static void vdla_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    VdlaState *s = opaque;

    trace_vdla_mmio_write(addr, val);
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

/*
 * Says at realize which host code computes, so that a bug report names it
 * (also in the COMPUTE register, which vdla-info prints in the guest).
 */
static void vdla_report_compute(VdlaState *s)
{
    uint32_t compute = vdla_core_compute(s->core);
    uint32_t path = VDLA_COMPUTE_PATH(compute);
    const char *why = "";

    if (!s->config.compute_path && path != VDLA_COMPUTE_PATH_ONEDNN) {
        vdla_compute_path_available(VDLA_COMPUTE_PATH_ONEDNN, &why);
    }
    info_report("vdla: compute path %s%s (float on oneDNN %s)%s%s",
                vdla_compute_path_name(path),
                s->config.compute_path ? ", set by x-compute-path" : "",
                vdla_compute_isa_name(VDLA_COMPUTE_FLOAT_ISA(compute)),
                *why ? "; onednn not used: " : "", why);
}

static void vdla_realize(PCIDevice *pdev, Error **errp)
{
    VdlaState *s = VDLA(pdev);
    struct vdla_core_host host = {
        .opaque = s,
        .raise_irq = vdla_raise_irq,
        .clock_ns = vdla_clock_ns,
        .guest_error = vdla_guest_error,
        .dma_read = vdla_dma_read,
        .dma_map = vdla_dma_map,
        .dma_unmap = vdla_dma_unmap,
        .dma_valid = vdla_dma_valid,
        .thread_start = vdla_thread_start,
        .thread_stop = vdla_thread_stop,
        .thread_create = vdla_thread_create,
        .thread_join = vdla_thread_join,
        .trace = vdla_trace,
    };
    const char *problem = NULL;

    if (s->compute_path &&
        vdla_compute_path_from_name(s->compute_path, &s->config.compute_path)) {
        error_setg(errp, "vdla: x-compute-path must be auto, scalar, avx2 or onednn, not '%s'",
                   s->compute_path);
        return;
    }
    problem = vdla_core_config_problem(&s->config);
    if (problem) {
        error_setg(errp, "vdla: %s%s%s",
                   s->config.compute_path ? "x-compute-path: " : "", problem,
                   s->config.compute_path ? " (docs/hw-spec.md, \"Compute paths\")" : "");
        return;
    }
    /*
     * The SRAM is the RAM of its BAR's region, which the device object
     * owns: it outlives every mapping of it (QEMU frees it after RCU),
     * where memory the core freed at unplug could still be mapped.
     */
    if (!memory_region_init_ram(&s->sram, OBJECT(s), "vdla-sram",
                                s->config.sram_size, errp)) {
        return;
    }
    host.sram = memory_region_get_ram_ptr(&s->sram);
    s->core = vdla_core_create(&host, &s->config, &problem);
    if (!s->core) {
        error_setg(errp, "vdla: %s%s%s",
                   s->config.compute_path ? "x-compute-path: " : "",
                   problem ? problem : "cannot create the device core",
                   s->config.compute_path ? " (docs/hw-spec.md, \"Compute paths\")" : "");
        return;
    }
    vdla_report_compute(s);

    memory_region_init_io(&s->mmio, OBJECT(s), &vdla_mmio_ops, s, "vdla-mmio",
                  VDLA_MMIO_SIZE);
    pci_register_bar(pdev, VDLA_BAR_MMIO,
             PCI_BASE_ADDRESS_SPACE_MEMORY | PCI_BASE_ADDRESS_MEM_TYPE_64,
             &s->mmio);

    pci_register_bar(pdev, VDLA_BAR_SRAM,
             PCI_BASE_ADDRESS_SPACE_MEMORY | PCI_BASE_ADDRESS_MEM_TYPE_64 |
                 PCI_BASE_ADDRESS_MEM_PREFETCH,
             &s->sram);

    if (msix_init_exclusive_bar(pdev, VDLA_MSIX_VECTORS, VDLA_BAR_MSIX, errp)) {
        vdla_core_destroy(s->core);
        s->core = NULL;
        return;
    }
    for (unsigned int i = 0; i < VDLA_MSIX_VECTORS; i++) {
        msix_vector_use(pdev, i);
    }
}

static void vdla_exit(PCIDevice *pdev)
{
    VdlaState *s = VDLA(pdev);

    vdla_stop_raisers(s);
    msix_uninit_exclusive_bar(pdev);
    /* Stops the workers before the memory they use goes away. */
    vdla_core_destroy(s->core);
    s->core = NULL;
}

static void vdla_reset_hold(Object *obj, ResetType type)
{
    VdlaState *s = VDLA(obj);

    vdla_core_reset(s->core);
}

static void vdla_instance_init(Object *obj)
{
    VdlaState *s = VDLA(obj);

    vdla_core_default_config(&s->config);
}

/*
 * The device cannot migrate: its engines compute on threads outside any
 * vCPU, with state (operations in flight, the TLB) that no VMState covers.
 * Refusing is better than a snapshot that loses the device.
 */
static const VMStateDescription vmstate_vdla = {
    .name = TYPE_VDLA,
    .unmigratable = 1,
};

static const Property vdla_properties[] = {
    DEFINE_PROP_UINT32("sram-size", VdlaState, config.sram_size,
                       VDLA_SRAM_DEFAULT_SIZE),
    DEFINE_PROP_INT32("x-fi-engine", VdlaState, config.fi_engine, -1),
    DEFINE_PROP_UINT32("x-fi-mode", VdlaState, config.fi_mode, 0),
    DEFINE_PROP_UINT32("x-fi-count", VdlaState, config.fi_count, 0),
    DEFINE_PROP_UINT32("x-fi-delay-us", VdlaState, config.fi_delay_us, 0),
    DEFINE_PROP_STRING("x-compute-path", VdlaState, compute_path),
    DEFINE_PROP_UINT32("x-op-memory-mb", VdlaState, config.op_memory_mb,
                       VDLA_OP_MEMORY_DEFAULT_MB),
};

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
    device_class_set_props(dc, vdla_properties);
    dc->vmsd = &vmstate_vdla;
    dc->desc = "vDLA deep-learning accelerator";
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo vdla_types[] = {
    {
        .name = TYPE_VDLA,
        .parent = TYPE_PCI_DEVICE,
        .instance_size = sizeof(VdlaState),
        .instance_init = vdla_instance_init,
        .class_init = vdla_class_init,
        .interfaces = (InterfaceInfo[]) {
            { INTERFACE_CONVENTIONAL_PCI_DEVICE },
            { },
        },
    },
};

DEFINE_TYPES(vdla_types)
