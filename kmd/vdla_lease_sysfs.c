// SPDX-License-Identifier: GPL-2.0-only
/*
 * What administrators and developers see of the leases: the sysfs
 * attributes sram_partitions and time_shares of the PCI device, where the
 * SRAM partitions and the device-time shares are defined, and debugfs
 * "leases", every resource with its holder and its queue.
 *
 * debugfs lists the engine reservations too, those ever granted, held or
 * waited for.
 *
 * sram_partitions reads and takes "name:size[,name:size...]" (sizes in
 * bytes, with an optional K or M, page multiples; an empty line removes
 * them). Writing fails with EBUSY while a lease is on a partition or an
 * SRAM BO lies where the partitions change, and with ENOSPC if they do not
 * fit the SRAM.
 *
 * time_shares reads and takes "name:percent[,name:percent...]" (an
 * optional '%' after each; 1 to 100 each, at most 100 together: ENOSPC
 * above). Writing fails with EBUSY while a lease is on a share.
 */
#include <drm/drm_print.h>
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "vdla_ctx.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_lease_core.h"
#include "vdla_sched.h"
#include "vdla_sram.h"

static ssize_t sram_partitions_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct vdla_device *vdev = pci_get_drvdata(to_pci_dev(dev));
	struct drm_vdla_query_sram_partitions parts;
	int len = 0;

	vdla_sram_partitions(vdev, &parts);
	for (u32 i = 0; i < parts.count; i++)
		len += sysfs_emit_at(buf, len, "%s%s:%llu", i ? "," : "", parts.partitions[i].name,
				     parts.partitions[i].size);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/* Names are what debugfs and QUERY print: letters, digits, '-' and '_'. */
static bool valid_name(const char *name)
{
	for (; *name; name++) {
		if (!isalnum(*name) && *name != '-' && *name != '_')
			return false;
	}
	return true;
}

/* Parses "name:size,..." into @parts; the count, or -EINVAL. */
static int parse_partitions(char *text, struct vdla_sram_part *parts)
{
	char *item, *colon, *end;
	int n = 0;

	text = strim(text);
	if (!*text)
		return 0;
	while ((item = strsep(&text, ","))) {
		if (n == DRM_VDLA_MAX_SRAM_PARTITIONS)
			return -EINVAL;
		colon = strchr(item, ':');
		if (!colon || colon == item || colon - item >= sizeof(parts[n].name))
			return -EINVAL;
		*colon = '\0';
		item = strim(item);
		if (!*item || !valid_name(item))
			return -EINVAL;
		memset(&parts[n], 0, sizeof(parts[n]));
		strscpy(parts[n].name, item);
		parts[n].size = memparse(colon + 1, &end);
		if (*strim(end) || !parts[n].size || !PAGE_ALIGNED(parts[n].size))
			return -EINVAL;
		n++;
	}
	return n;
}

/* Whether a lease (held, waiting or handing over) is on a resource of @type. */
static bool leased(struct vdla_device *vdev, u32 type)
{
	struct vdla_lease *lease;

	lockdep_assert_held(&vdev->leases.lock);
	list_for_each_entry(lease, &vdev->leases.leases, mgr_link) {
		if (lease->res->type == type)
			return true;
	}
	return false;
}

static ssize_t sram_partitions_store(struct device *dev, struct device_attribute *attr,
				     const char *buf, size_t count)
{
	struct vdla_device *vdev = pci_get_drvdata(to_pci_dev(dev));
	struct vdla_sram_part parts[DRM_VDLA_MAX_SRAM_PARTITIONS];
	char *text;
	int n, ret;

	text = kstrndup(buf, count, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	n = parse_partitions(text, parts);
	kfree(text);
	if (n < 0)
		return n;

	mutex_lock(&vdev->leases.lock);
	if (leased(vdev, DRM_VDLA_RESOURCE_SRAM_PARTITION))
		ret = -EBUSY;
	else
		ret = vdla_sram_set_partitions(vdev, parts, n);
	mutex_unlock(&vdev->leases.lock);
	if (ret)
		drm_info(&vdev->drm, "SRAM partitions not changed: %d\n", ret);
	return ret ?: count;
}

static DEVICE_ATTR_RW(sram_partitions);

static ssize_t time_shares_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct vdla_device *vdev = pci_get_drvdata(to_pci_dev(dev));
	struct drm_vdla_query_time_shares shares;
	int len = 0;

	vdla_sched_query_shares(vdev, &shares);
	for (u32 i = 0; i < shares.count; i++)
		len += sysfs_emit_at(buf, len, "%s%s:%u", i ? "," : "", shares.shares[i].name,
				     shares.shares[i].percent);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/* Parses "name:percent,..." into @shares; the count, -EINVAL or -ENOSPC. */
static int parse_shares(char *text, struct vdla_share *shares)
{
	char *item, *colon;
	u32 total = 0;
	int n = 0;

	text = strim(text);
	if (!*text)
		return 0;
	while ((item = strsep(&text, ","))) {
		char *number;
		u32 percent;

		if (n == DRM_VDLA_MAX_TIME_SHARES)
			return -EINVAL;
		colon = strchr(item, ':');
		if (!colon || colon == item || colon - item >= sizeof(shares[n].name))
			return -EINVAL;
		*colon = '\0';
		item = strim(item);
		if (!*item || !valid_name(item))
			return -EINVAL;
		number = strim(colon + 1);
		if (*number && number[strlen(number) - 1] == '%')
			number[strlen(number) - 1] = '\0';
		if (kstrtou32(number, 10, &percent) || !percent || percent > 100)
			return -EINVAL;
		for (int i = 0; i < n; i++) {
			if (!strcmp(shares[i].name, item))
				return -EINVAL;
		}
		memset(&shares[n], 0, sizeof(shares[n]));
		strscpy(shares[n].name, item);
		shares[n].percent = percent;
		total += percent;
		n++;
	}
	return total > 100 ? -ENOSPC : n;
}

static ssize_t time_shares_store(struct device *dev, struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct vdla_device *vdev = pci_get_drvdata(to_pci_dev(dev));
	struct vdla_share shares[DRM_VDLA_MAX_TIME_SHARES];
	char *text;
	int n, ret;

	text = kstrndup(buf, count, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	n = parse_shares(text, shares);
	kfree(text);
	if (n < 0)
		return n;

	mutex_lock(&vdev->leases.lock);
	if (leased(vdev, DRM_VDLA_RESOURCE_TIME_SHARE))
		ret = -EBUSY;
	else
		ret = vdla_sched_set_shares(vdev, shares, n);
	mutex_unlock(&vdev->leases.lock);
	if (ret)
		drm_info(&vdev->drm, "device-time shares not changed: %d\n", ret);
	return ret ?: count;
}

static DEVICE_ATTR_RW(time_shares);

static struct attribute *vdla_lease_attrs[] = {
	&dev_attr_sram_partitions.attr,
	&dev_attr_time_shares.attr,
	NULL,
};

static const struct attribute_group vdla_lease_group = {
	.attrs = vdla_lease_attrs,
};

int vdla_lease_sysfs_init(struct vdla_device *vdev)
{
	return devm_device_add_group(&vdev->pdev->dev, &vdla_lease_group);
}

static void show_lease(struct seq_file *m, const char *role, const struct vdla_lease *lease,
		       ktime_t now)
{
	seq_printf(m, "  %s lease %u pid %d ctx %u priority %u queue_priority %u age_ms %lld%s%s\n",
		   role, lease->id, lease->pid, lease->ctx->id, lease->arb.priority,
		   vdla_arb_queue_priority(&lease->res->arb, &lease->arb),
		   ktime_ms_delta(now, lease->created),
		   lease->asked ? " release_requested" : "",
		   lease->revoked ? " revoked" : lease->ending ? " released" : "");
}

void vdla_lease_debugfs_show(struct seq_file *m, struct vdla_device *vdev)
{
	struct vdla_lease_mgr *mgr = &vdev->leases;
	struct drm_vdla_query_sram_partitions parts;
	struct drm_vdla_query_time_shares shares;
	struct vdla_lease *lease;
	ktime_t now = ktime_get();

	vdla_sram_partitions(vdev, &parts);
	vdla_sched_query_shares(vdev, &shares);
	mutex_lock(&mgr->lock);
	for (u32 i = 0; i < parts.count; i++) {
		struct vdla_lease_resource *res = &mgr->partitions[i];

		seq_printf(m, "sram_partition %u %s size %llu grants %llu waiters %u\n", i,
			   parts.partitions[i].name, parts.partitions[i].size, res->grants,
			   res->arb.num_waiters);
		list_for_each_entry(lease, &mgr->leases, mgr_link) {
			if (lease->res != res)
				continue;
			show_lease(m, lease->arb.state == VDLA_ARB_HELD ? "holder" : "waiter",
				   lease, now);
		}
	}
	for (u32 i = 0; i < DRM_VDLA_NUM_ENGINES; i++) {
		struct vdla_lease_resource *res = &mgr->engines[i];

		if (!res->arb.holder && !res->arb.num_waiters && !res->grants)
			continue;
		seq_printf(m, "engine %u grants %llu waiters %u\n", i, res->grants,
			   res->arb.num_waiters);
		list_for_each_entry(lease, &mgr->leases, mgr_link) {
			if (lease->res == res)
				show_lease(m, lease->arb.state == VDLA_ARB_HELD ? "holder" : "waiter",
					   lease, now);
		}
	}
	for (u32 i = 0; i < shares.count; i++) {
		struct vdla_lease_resource *res = &mgr->time_shares[i];

		seq_printf(m, "time_share %u %s percent %u of %u us used_ns %llu total_ns %llu grants %llu waiters %u\n",
			   i, shares.shares[i].name, shares.shares[i].percent, shares.period_us,
			   shares.shares[i].used_ns, shares.shares[i].total_ns, res->grants,
			   res->arb.num_waiters);
		list_for_each_entry(lease, &mgr->leases, mgr_link) {
			if (lease->res == res)
				show_lease(m, lease->arb.state == VDLA_ARB_HELD ? "holder" : "waiter",
					   lease, now);
		}
	}
	mutex_unlock(&mgr->lock);
}
