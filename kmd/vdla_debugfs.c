// SPDX-License-Identifier: GPL-2.0-only
/*
 * debugfs, in the device's DRM debugfs directory:
 *   state         counters of live objects and of events, "key: value" lines
 *   contexts      every context of every file
 *   jobs          the running job, the ready lists and the waiting jobs
 *   registers     the global, MMU and fault-injection registers
 *   leases        every SRAM partition with its holder and its queue
 *   fault_inject  write "<engine> <mode> <count> [delay_us]" to arm the
 *                 device's fault injection for an engine
 */
#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "vdla_ctx.h"
#include "vdla_debugfs.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_job.h"
#include "vdla_sched.h"

static struct vdla_device *entry_vdev(struct seq_file *m)
{
	struct drm_debugfs_entry *entry = m->private;

	return to_vdla_device(entry->dev);
}

static int state_show(struct seq_file *m, void *unused)
{
	struct vdla_device *vdev = entry_vdev(m);
	struct vdla_sched *s = &vdev->sched;
	struct vdla_sram_usage sram;
	int idx;

	vdla_sram_usage(vdev, &sram);
	seq_printf(m, "bos: %d\n", atomic_read(&vdev->counters.bos));
	seq_printf(m, "mappings: %d\n", atomic_read(&vdev->counters.mappings));
	seq_printf(m, "jobs: %d\n", atomic_read(&vdev->counters.jobs));
	seq_printf(m, "contexts: %d\n", atomic_read(&vdev->counters.contexts));
	seq_printf(m, "ended_jobs: %d\n", atomic_read(&vdev->counters.ended_jobs));
	seq_printf(m, "sram_used: %llu\n", sram.used);
	seq_printf(m, "leases: %d\n", atomic_read(&vdev->counters.leases));
	seq_printf(m, "pipelines: %d\n", atomic_read(&vdev->counters.pipelines));
	seq_printf(m, "channels: %d\n", atomic_read(&vdev->counters.channels));
	mutex_lock(&vdev->fw_lock);
	seq_printf(m, "queued: %u\n", s->queued);
	seq_printf(m, "waiting: %u\n", s->waiting);
	seq_printf(m, "running: %u\n", s->running ? 1 : 0);
	seq_printf(m, "resets: %llu\n", s->stats.resets);
	seq_printf(m, "timeouts: %llu\n", s->stats.timeouts);
	seq_printf(m, "mmu_faults: %llu\n", s->stats.mmu_faults);
	seq_printf(m, "op_errors: %llu\n", s->stats.op_errors);
	seq_printf(m, "preemptions: %llu\n", s->stats.preemptions);
	seq_printf(m, "jobs_completed: %llu\n", s->stats.jobs_completed);
	seq_printf(m, "jobs_failed: %llu\n", s->stats.jobs_failed);
	mutex_unlock(&vdev->fw_lock);
	if (drm_dev_enter(&vdev->drm, &idx)) {
		seq_printf(m, "device_resets: %u\n", vdla_read(vdev, VDLA_REG_RESET_COUNT));
		drm_dev_exit(idx);
	}
	return 0;
}

static const char *const priority_names[DRM_VDLA_PRIORITIES] = { "low", "normal", "high" };

static int contexts_show(struct seq_file *m, void *unused)
{
	struct vdla_device *vdev = entry_vdev(m);
	struct drm_file *file;

	seq_puts(m, "pid comm ctx priority state submitted completed failed preempted busy_ns last_error\n");
	mutex_lock(&vdev->drm.filelist_mutex);
	list_for_each_entry(file, &vdev->drm.filelist, lhead) {
		struct vdla_file *vfile = file->driver_priv;
		struct vdla_ctx *ctx;
		unsigned long id;

		xa_lock(&vfile->contexts);
		xa_for_each(&vfile->contexts, id, ctx) {
			seq_printf(m, "%d %s %u %s %s %lld %llu %llu %llu %llu %d\n", vfile->pid,
				   vfile->comm, ctx->id, priority_names[ctx->priority],
				   ctx->banned ? "banned" : "active",
				   atomic64_read(&ctx->jobs_submitted), ctx->jobs_completed,
				   ctx->jobs_failed, ctx->jobs_preempted, ctx->busy_ns,
				   ctx->last_error);
		}
		xa_unlock(&vfile->contexts);
	}
	mutex_unlock(&vdev->drm.filelist_mutex);
	return 0;
}

static void show_job(struct seq_file *m, const char *what, const struct vdla_job *job)
{
	seq_printf(m, "%s %d %u %llu %s %llu%s\n", what,
		   job->file->pid, job->ctx->id, job->seqno, priority_names[job->priority],
		   job->run_ns, job->stopped ? " (preempted)" : "");
}

static int jobs_show(struct seq_file *m, void *unused)
{
	struct vdla_device *vdev = entry_vdev(m);
	struct vdla_sched *s = &vdev->sched;
	struct vdla_job *job;
	struct vdla_ctx *ctx;

	seq_puts(m, "state pid ctx seqno priority run_ns\n");
	mutex_lock(&vdev->fw_lock);
	if (s->running)
		show_job(m, "running", s->running);
	for (int p = DRM_VDLA_PRIORITIES - 1; p >= 0; p--) {
		list_for_each_entry(job, &s->ready[p], link)
			show_job(m, "ready", job);
	}
	list_for_each_entry(ctx, &s->contexts, sched_link) {
		list_for_each_entry(job, &ctx->waiting, link)
			show_job(m, "waiting", job);
	}
	mutex_unlock(&vdev->fw_lock);
	return 0;
}

static const struct { const char *name; u32 reg; } dumped_registers[] = {
	{ "ID", VDLA_REG_ID },
	{ "VERSION", VDLA_REG_VERSION },
	{ "CAPS", VDLA_REG_CAPS },
	{ "RESET_COUNT", VDLA_REG_RESET_COUNT },
	{ "INT_STATUS", VDLA_REG_INT_STATUS },
	{ "INT_ENABLE", VDLA_REG_INT_ENABLE },
	{ "SRAM_SIZE", VDLA_REG_SRAM_SIZE },
	{ "ENGINES", VDLA_REG_ENGINES },
	{ "IDLE", VDLA_REG_IDLE },
	{ "MMU_CTRL", VDLA_REG_MMU_CTRL },
	{ "MMU_CONTEXTS", VDLA_REG_MMU_CONTEXTS },
	{ "MMU_FAULT_STATUS", VDLA_REG_MMU_FAULT_STATUS },
	{ "MMU_FAULT_ADDR_LO", VDLA_REG_MMU_FAULT_ADDR_LO },
	{ "MMU_FAULT_ADDR_HI", VDLA_REG_MMU_FAULT_ADDR_HI },
};

static const char *const engine_names[VDLA_NUM_ENGINES] = {
	"bdma", "conv", "sdp", "pdp", "cdp", "rubik",
};

static const char *const fi_mode_names[VDLA_FI_MODES] = {
	"none", "hang", "drop_irq", "dup_irq", "op_error", "delay",
};

static int registers_show(struct seq_file *m, void *unused)
{
	struct vdla_device *vdev = entry_vdev(m);
	int idx;

	/* The registers go with the PCI device; the directory may outlive it. */
	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;

	for (int i = 0; i < ARRAY_SIZE(dumped_registers); i++)
		seq_printf(m, "%-18s 0x%04x: 0x%08x\n", dumped_registers[i].name,
			   dumped_registers[i].reg, vdla_read(vdev, dumped_registers[i].reg));
	for (int ctx = 0; ctx < VDLA_MMU_NUM_CONTEXTS; ctx++)
		seq_printf(m, "MMU_CTX_BASE[%2d]   0x%08x%08x\n", ctx,
			   vdla_read(vdev, VDLA_REG_MMU_CTX_BASE_HI(ctx)),
			   vdla_read(vdev, VDLA_REG_MMU_CTX_BASE_LO(ctx)));
	for (int e = 0; e < VDLA_NUM_ENGINES; e++)
		seq_printf(m, "FI[%-5s]          mode %u count %u delay_us %u\n", engine_names[e],
			   vdla_read(vdev, VDLA_REG_FI_MODE(e)),
			   vdla_read(vdev, VDLA_REG_FI_COUNT(e)),
			   vdla_read(vdev, VDLA_REG_FI_DELAY_US(e)));
	drm_dev_exit(idx);
	return 0;
}

/* Every SRAM partition, its holder and its queue (vdla_lease_sysfs.c). */
static int leases_show(struct seq_file *m, void *unused)
{
	vdla_lease_debugfs_show(m, entry_vdev(m));
	return 0;
}

/* Every pipeline, its references and channels (vdla_pipeline.c). */
static int pipelines_show(struct seq_file *m, void *unused)
{
	vdla_pipeline_debugfs_show(m, entry_vdev(m));
	return 0;
}

static const struct drm_debugfs_info vdla_debugfs_list[] = {
	{ "state", state_show },
	{ "contexts", contexts_show },
	{ "jobs", jobs_show },
	{ "registers", registers_show },
	{ "leases", leases_show },
	{ "pipelines", pipelines_show },
};

/* "<engine> <mode> <count|forever> [delay_us]", nothing else. */
static ssize_t fault_inject_write(struct file *f, const char __user *ubuf, size_t len,
				  loff_t *pos)
{
	struct vdla_device *vdev = file_inode(f)->i_private;
	char buf[64], *cur = buf, *tok[5] = {};
	unsigned int delay = 0, n, count;
	int e, mode, idx, ntok = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	while (ntok < ARRAY_SIZE(tok)) {
		char *t = strsep(&cur, " \t\n");

		if (!t)
			break;
		if (*t)
			tok[ntok++] = t;
	}
	if (ntok < 3 || ntok > 4)
		return -EINVAL;
	e = match_string(engine_names, ARRAY_SIZE(engine_names), tok[0]);
	mode = match_string(fi_mode_names, ARRAY_SIZE(fi_mode_names), tok[1]);
	if (e < 0 || mode < 0)
		return -EINVAL;
	if (!strcmp(tok[2], "forever"))
		count = VDLA_FI_COUNT_FOREVER;
	else if (!kstrtouint(tok[2], 0, &n))
		count = n;
	else
		return -EINVAL;
	if (ntok == 4 && kstrtouint(tok[3], 0, &delay))
		return -EINVAL;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&vdev->fw_lock);
	vdla_write(vdev, VDLA_REG_FI_DELAY_US(e), delay);
	vdla_write(vdev, VDLA_REG_FI_COUNT(e), count);
	vdla_write(vdev, VDLA_REG_FI_MODE(e), mode);
	mutex_unlock(&vdev->fw_lock);
	drm_dev_exit(idx);
	return len;
}

static int fault_inject_show(struct seq_file *m, void *unused)
{
	struct vdla_device *vdev = m->private;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	for (int e = 0; e < VDLA_NUM_ENGINES; e++) {
		u32 mode = vdla_read(vdev, VDLA_REG_FI_MODE(e));

		seq_printf(m, "%s %s %u %u\n", engine_names[e],
			   mode < VDLA_FI_MODES ? fi_mode_names[mode] : "?",
			   vdla_read(vdev, VDLA_REG_FI_COUNT(e)),
			   vdla_read(vdev, VDLA_REG_FI_DELAY_US(e)));
	}
	drm_dev_exit(idx);
	return 0;
}

static int fault_inject_open(struct inode *inode, struct file *f)
{
	return single_open(f, fault_inject_show, inode->i_private);
}

static const struct file_operations fault_inject_fops = {
	.owner = THIS_MODULE,
	.open = fault_inject_open,
	.read = seq_read,
	.write = fault_inject_write,
	.llseek = seq_lseek,
	.release = single_release,
};

void vdla_debugfs_init(struct vdla_device *vdev)
{
	drm_debugfs_add_files(&vdev->drm, vdla_debugfs_list, ARRAY_SIZE(vdla_debugfs_list));
}

void vdla_debugfs_register(struct vdla_device *vdev)
{
	if (vdev->drm.debugfs_root)
		debugfs_create_file("fault_inject", 0600, vdev->drm.debugfs_root, vdev,
				    &fault_inject_fops);
}
