/* SPDX-License-Identifier: MIT */
#include "device_harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace vdla_test {

uint32_t computePathFromEnvironment()
{
	const char *name = std::getenv("VDLA_COMPUTE_PATH");
	uint32_t path = 0;
	if (name && *name && vdla_compute_path_from_name(name, &path))
		throw std::runtime_error(std::string("VDLA_COMPUTE_PATH=") + name
			+ ": not a compute path (auto, scalar, avx2 or onednn)");
	return path;
}

DeviceHarness::DeviceHarness(const vdla_core_config *config, uint64_t guestBytes)
	: memory_(guestBytes)
{
	vdla_core_host host = {};
	host.opaque = this;
	host.raise_irq = raiseIrq;
	host.clock_ns = clockNs;
	host.guest_error = guestError;
	host.dma_read = dmaRead;
	host.dma_map = dmaMap;
	host.dma_unmap = dmaUnmap;
	host.dma_valid = dmaValid;
	host.trace = trace;

	vdla_core_config effective;
	if (config)
		effective = *config;
	else
		vdla_core_default_config(&effective);
	if (!effective.compute_path)
		effective.compute_path = computePathFromEnvironment();
	const char *error = nullptr;
	core_ = vdla_core_create(&host, &effective, &error);
	if (!core_)
		throw std::runtime_error(std::string("vdla_core_create: ") + (error ? error : "?"));
	write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
}

DeviceHarness::~DeviceHarness()
{
	vdla_core_destroy(core_);
}

uint32_t DeviceHarness::read(uint64_t offset)
{
	return vdla_core_mmio_read(core_, offset, 4);
}

uint64_t DeviceHarness::read64(uint64_t offset)
{
	return vdla_core_mmio_read(core_, offset, 8);
}

void DeviceHarness::write(uint64_t offset, uint32_t value)
{
	vdla_core_mmio_write(core_, offset, value, 4);
}

uint32_t DeviceHarness::readEngine(unsigned engine, uint32_t offset)
{
	return read(VDLA_ENGINE_BASE(engine) + offset);
}

void DeviceHarness::writeEngine(unsigned engine, uint32_t offset, uint32_t value)
{
	write(VDLA_ENGINE_BASE(engine) + offset, value);
}

void DeviceHarness::write64Engine(unsigned engine, uint32_t offsetLo, uint64_t value)
{
	writeEngine(engine, offsetLo, uint32_t(value));
	writeEngine(engine, offsetLo + 4, uint32_t(value >> 32));
}

void DeviceHarness::writeTensor(unsigned engine, uint32_t offset, const TensorDesc &t)
{
	write64Engine(engine, offset + VDLA_T_ADDR_LO, t.addr);
	writeEngine(engine, offset + VDLA_T_DTYPE, t.dtype);
	writeEngine(engine, offset + VDLA_T_W, t.w);
	writeEngine(engine, offset + VDLA_T_H, t.h);
	writeEngine(engine, offset + VDLA_T_C, t.c);
	writeEngine(engine, offset + VDLA_T_N, t.n);
	writeEngine(engine, offset + VDLA_T_STRIDE_W, t.strideW);
	writeEngine(engine, offset + VDLA_T_STRIDE_H, t.strideH);
	writeEngine(engine, offset + VDLA_T_STRIDE_C, t.strideC);
	writeEngine(engine, offset + VDLA_T_STRIDE_N, t.strideN);
}

unsigned DeviceHarness::consumerGroup(unsigned engine)
{
	return (readEngine(engine, VDLA_E_POINTER) & VDLA_E_POINTER_CONSUMER_MASK)
		>> VDLA_E_POINTER_CONSUMER_SHIFT;
}

void DeviceHarness::selectGroup(unsigned engine, unsigned group)
{
	writeEngine(engine, VDLA_E_POINTER, group);
}

uint32_t DeviceHarness::groupState(unsigned engine, unsigned group)
{
	return (readEngine(engine, VDLA_E_STATUS_REG(group)) >> VDLA_E_STATUS_GROUP_SHIFT(group)) &
	       VDLA_E_STATUS_GROUP_MASK;
}

GroupStats DeviceHarness::stats(unsigned engine, unsigned group)
{
	uint32_t base = VDLA_E_GROUP_STAT(group);
	auto read64 = [&](uint32_t lo) {
		uint64_t low = readEngine(engine, base + lo);
		return low | (uint64_t(readEngine(engine, base + lo + 4)) << 32);
	};
	GroupStats s;
	s.error = readEngine(engine, base + VDLA_E_STAT_ERROR);
	s.macs = read64(VDLA_E_STAT_MACS_LO);
	s.bytesRead = read64(VDLA_E_STAT_READ_LO);
	s.bytesWritten = read64(VDLA_E_STAT_WRITE_LO);
	s.timeNs = read64(VDLA_E_STAT_TIME_LO);
	return s;
}

bool DeviceHarness::waitInterrupts(uint32_t mask, std::chrono::milliseconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	/*
	 * Registers are read without lock_ held: the core may report a guest
	 * error (which takes lock_) while holding its own lock.
	 */
	while ((read(VDLA_REG_INT_STATUS) & mask) != mask) {
		if (std::chrono::steady_clock::now() >= deadline)
			return false;
		std::unique_lock<std::mutex> guard(lock_);
		irqCv_.wait_for(guard, std::chrono::milliseconds(2));
	}
	return true;
}

bool DeviceHarness::waitIdle(std::chrono::milliseconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	while (read(VDLA_REG_IDLE) != (1u << VDLA_NUM_ENGINES) - 1) {
		if (std::chrono::steady_clock::now() >= deadline)
			return false;
		std::unique_lock<std::mutex> guard(lock_);
		irqCv_.wait_for(guard, std::chrono::milliseconds(2));
	}
	return true;
}

uint64_t DeviceHarness::alloc(uint64_t bytes, uint64_t align)
{
	uint64_t addr = (nextFree_ + align - 1) & ~(align - 1);
	if (addr + bytes > memory_.size())
		throw std::runtime_error("DeviceHarness::alloc: guest memory exhausted");
	nextFree_ = addr + bytes;
	return addr;
}

void DeviceHarness::setDmaReadHook(std::function<void(uint64_t gpa, uint64_t len)> hook)
{
	std::lock_guard<std::mutex> guard(lock_);
	readHook_ = std::move(hook);
}

void DeviceHarness::setMapHole(uint64_t gpa, uint64_t len)
{
	std::lock_guard<std::mutex> guard(lock_);
	mapHoleStart_ = gpa;
	mapHoleLen_ = len;
}

void DeviceHarness::setDmaHole(uint64_t gpa, uint64_t len)
{
	holeStart_ = gpa;
	holeLen_ = len;
}

void DeviceHarness::trace(void *opaque, const vdla_trace *event)
{
	auto *self = static_cast<DeviceHarness *>(opaque);
	std::lock_guard<std::mutex> guard(self->lock_);
	self->traces_.push_back(*event);
}

std::vector<vdla_trace> DeviceHarness::traces()
{
	std::lock_guard<std::mutex> guard(lock_);
	return traces_;
}

std::vector<std::string> DeviceHarness::guestErrors()
{
	std::lock_guard<std::mutex> guard(lock_);
	return errors_;
}

void DeviceHarness::clearGuestErrors()
{
	std::lock_guard<std::mutex> guard(lock_);
	errors_.clear();
}

void DeviceHarness::setRaiseHook(std::function<void()> hook)
{
	std::lock_guard<std::mutex> guard(lock_);
	raiseHook_ = std::move(hook);
}

void DeviceHarness::raiseIrq(void *opaque, unsigned int)
{
	auto *self = static_cast<DeviceHarness *>(opaque);
	std::function<void()> hook;
	{
		std::lock_guard<std::mutex> guard(self->lock_);
		hook = self->raiseHook_;
	}
	if (hook)
		hook();
	self->messages_++;
	std::lock_guard<std::mutex> guard(self->lock_);
	self->irqCv_.notify_all();
}

uint64_t DeviceHarness::clockNs(void *opaque)
{
	return static_cast<DeviceHarness *>(opaque)->nowNs.load();
}

void DeviceHarness::guestError(void *opaque, const char *fmt, va_list args)
{
	auto *self = static_cast<DeviceHarness *>(opaque);
	char text[512];
	std::vsnprintf(text, sizeof(text), fmt, args);
	std::lock_guard<std::mutex> guard(self->lock_);
	self->errors_.push_back(text);
}

bool DeviceHarness::dmaAllowed(uint64_t addr, uint64_t len) const
{
	if (addr > memory_.size() || len > memory_.size() - addr)
		return false;
	return !(holeLen_ && addr < holeStart_ + holeLen_ && holeStart_ < addr + len);
}

int DeviceHarness::dmaRead(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
	auto *self = static_cast<DeviceHarness *>(opaque);
	if (!self->dmaAllowed(addr, len))
		return -1;
	std::memcpy(buf, self->memory_.data() + addr, len);
	std::function<void(uint64_t, uint64_t)> hook;
	{
		std::lock_guard<std::mutex> guard(self->lock_);
		hook = self->readHook_;
	}
	if (hook)
		hook(addr, len);
	return 0;
}

void *DeviceHarness::dmaMap(void *opaque, uint64_t addr, uint64_t len, bool write)
{
	auto *self = static_cast<DeviceHarness *>(opaque);
	{
		std::lock_guard<std::mutex> guard(self->lock_);
		if (addr < self->mapHoleStart_ + self->mapHoleLen_ &&
		    self->mapHoleStart_ < addr + len)
			return nullptr;
	}
	if (!self->dmaAllowed(addr, len))
		return nullptr;
	if (!write) {
		self->inputMaps_++;
		self->inputMapsHeld_++;
	}
	return self->memory_.data() + addr;
}

void DeviceHarness::dmaUnmap(void *opaque, void *, uint64_t, bool write, uint64_t)
{
	if (!write)
		static_cast<DeviceHarness *>(opaque)->inputMapsHeld_--;
}

bool DeviceHarness::dmaValid(void *opaque, uint64_t addr, uint64_t len)
{
	return static_cast<DeviceHarness *>(opaque)->dmaAllowed(addr, len);
}

PageTables::PageTables(DeviceHarness &dev, unsigned context)
	: dev_(dev), context_(context)
{
	root_ = dev_.alloc(VDLA_PAGE_SIZE, VDLA_PAGE_SIZE);
	std::memset(dev_.guest(root_), 0, VDLA_PAGE_SIZE);
}

uint64_t *PageTables::entry(uint64_t va, bool create)
{
	uint64_t table = root_;
	for (int level = 0; level < VDLA_PT_LEVELS; level++) {
		unsigned shift = VDLA_PAGE_SHIFT + 9 * (VDLA_PT_LEVELS - 1 - level);
		auto *entries = reinterpret_cast<uint64_t *>(dev_.guest(table));
		uint64_t *e = &entries[(va >> shift) & (VDLA_PT_ENTRIES - 1)];
		if (level == VDLA_PT_LEVELS - 1)
			return e;
		if (!(*e & VDLA_PTE_VALID)) {
			if (!create)
				return nullptr;
			uint64_t next = dev_.alloc(VDLA_PAGE_SIZE, VDLA_PAGE_SIZE);
			std::memset(dev_.guest(next), 0, VDLA_PAGE_SIZE);
			*e = next | VDLA_PTE_VALID;
		}
		table = *e & VDLA_PTE_ADDR_MASK;
	}
	return nullptr;
}

void PageTables::map(uint64_t va, uint64_t gpa, uint64_t bytes, bool read, bool write)
{
	for (uint64_t off = 0; off < bytes; off += VDLA_PAGE_SIZE) {
		uint64_t *e = entry(va + off, true);
		*e = ((gpa + off) & VDLA_PTE_ADDR_MASK) | VDLA_PTE_VALID |
		     (read ? VDLA_PTE_READ : 0) | (write ? VDLA_PTE_WRITE : 0);
	}
}

void PageTables::unmap(uint64_t va, uint64_t bytes)
{
	for (uint64_t off = 0; off < bytes; off += VDLA_PAGE_SIZE) {
		if (uint64_t *e = entry(va + off, false))
			*e = 0;
	}
	dev_.write(VDLA_REG_MMU_INVALIDATE, context_);
}

void PageTables::activate()
{
	dev_.write(VDLA_REG_MMU_CTX_BASE_HI(context_), uint32_t(root_ >> 32));
	dev_.write(VDLA_REG_MMU_CTX_BASE_LO(context_), uint32_t(root_) | VDLA_MMU_CTX_ENABLE);
	dev_.write(VDLA_REG_MMU_CTRL, VDLA_MMU_CTRL_ENABLE);
	dev_.write(VDLA_REG_MMU_INVALIDATE, VDLA_MMU_INVALIDATE_ALL);
}

} /* namespace vdla_test */
