/* SPDX-License-Identifier: MIT */
#include "device_test_util.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>

namespace vdla_test {

bool waitUntil(const std::function<bool()> &pred, milliseconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	while (!pred()) {
		if (std::chrono::steady_clock::now() >= deadline)
			return pred();
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	}
	return true;
}

bool holdsFor(const std::function<bool()> &pred, milliseconds duration)
{
	auto deadline = std::chrono::steady_clock::now() + duration;
	while (std::chrono::steady_clock::now() < deadline) {
		if (!pred())
			return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	return pred();
}

BdmaOp BdmaOp::linear(uint64_t src, uint64_t dst, uint32_t bytes, uint32_t context)
{
	BdmaOp op;
	op.src = src;
	op.dst = dst;
	op.lineBytes = bytes;
	op.context = context;
	return op;
}

void BdmaOp::forEachLine(const std::function<void(uint64_t, uint64_t, uint32_t)> &f) const
{
	for (uint32_t s = 0; s < surfaces; s++) {
		for (uint32_t l = 0; l < lines; l++) {
			uint64_t srcOff = uint64_t(s) * srcSurfStride + uint64_t(l) * srcLineStride;
			uint64_t dstOff = uint64_t(s) * dstSurfStride + uint64_t(l) * dstLineStride;
			f(srcOff, dstOff, lineBytes);
		}
	}
}

uint64_t BdmaOp::srcExtent() const
{
	return uint64_t(surfaces - 1) * srcSurfStride + uint64_t(lines - 1) * srcLineStride +
	       lineBytes;
}

uint64_t BdmaOp::dstExtent() const
{
	return uint64_t(surfaces - 1) * dstSurfStride + uint64_t(lines - 1) * dstLineStride +
	       lineBytes;
}

void programBdma(DeviceHarness &dev, unsigned group, const BdmaOp &op)
{
	vdla_test::programBdma(dev, group, op, op.context);
}

void startBdma(DeviceHarness &dev, unsigned group, const BdmaOp &op)
{
	programBdma(dev, group, op);
	dev.enable(kBdma);
}

void startRubikCopy(DeviceHarness &dev, unsigned group, uint64_t src, uint64_t dst,
		    uint32_t rows, uint32_t rowBytes, uint32_t context)
{
	dev.selectGroup(kRubik, group);
	dev.writeEngine(kRubik, VDLA_D_CONTEXT, context);
	dev.writeEngine(kRubik, VDLA_D_CFG, VDLA_RUBIK_RESHAPE);
	dev.writeTensor(kRubik, VDLA_RUBIK_SRC,
			TensorDesc::nchw(src, VDLA_DTYPE_INT8, 1, 1, rows, rowBytes));
	dev.writeTensor(kRubik, VDLA_RUBIK_DST,
			TensorDesc::nchw(dst, VDLA_DTYPE_INT8, 1, 1, rows, rowBytes));
	dev.writeEngine(kRubik, VDLA_RUBIK_PERM,
			VDLA_DIM_W | (VDLA_DIM_H << 2) | (VDLA_DIM_C << 4) | (VDLA_DIM_N << 6));
	dev.writeEngine(kRubik, VDLA_RUBIK_BLOCK, 1 | (1u << 16));
	dev.enable(kRubik);
}

bool engineIdle(DeviceHarness &dev, unsigned engine)
{
	return dev.read(VDLA_REG_IDLE) & (1u << engine);
}

bool waitEngineIdle(DeviceHarness &dev, unsigned engine, milliseconds timeout)
{
	return waitUntil([&] { return engineIdle(dev, engine); }, timeout);
}

bool waitGroupState(DeviceHarness &dev, unsigned engine, unsigned group, uint32_t state,
		    milliseconds timeout)
{
	return waitUntil([&] { return dev.groupState(engine, group) == state; }, timeout);
}

bool waitRunning(DeviceHarness &dev, unsigned engine, unsigned group, milliseconds timeout)
{
	waitUntil([&] { return dev.groupState(engine, group) != VDLA_GROUP_PENDING; }, timeout);
	return dev.groupState(engine, group) == VDLA_GROUP_RUNNING;
}

bool waitMessages(DeviceHarness &dev, unsigned count, milliseconds timeout)
{
	return waitUntil([&] { return dev.messages() >= count; }, timeout);
}

uint32_t runBdma(DeviceHarness &dev, unsigned group, const BdmaOp &op)
{
	startBdma(dev, group, op);
	waitEngineIdle(dev, kBdma);
	uint32_t finished = VDLA_INT_DONE(kBdma) | VDLA_INT_ERROR(kBdma);
	waitUntil([&] { return dev.read(VDLA_REG_INT_STATUS) & finished; });
	return dev.groupState(kBdma, group);
}

void fillPattern(uint8_t *p, uint64_t bytes, uint32_t seed)
{
	/* A small LCG: cheap, and no two seeds give the same bytes. */
	uint32_t x = seed * 2654435761u + 12345u;
	for (uint64_t i = 0; i < bytes; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = uint8_t(x >> 23);
	}
}

std::vector<uint8_t> pattern(uint64_t bytes, uint32_t seed)
{
	std::vector<uint8_t> v(bytes);
	fillPattern(v.data(), bytes, seed);
	return v;
}

uint64_t read64(DeviceHarness &dev, uint64_t offsetLo)
{
	uint64_t lo = dev.read(offsetLo);
	return lo | (uint64_t(dev.read(offsetLo + 4)) << 32);
}

LatchedFault readMmuFault(DeviceHarness &dev)
{
	uint32_t status = dev.read(VDLA_REG_MMU_FAULT_STATUS);
	LatchedFault f;
	f.valid = status & VDLA_MMU_FAULT_VALID;
	f.write = status & VDLA_MMU_FAULT_WRITE;
	f.reason = (status & VDLA_MMU_FAULT_REASON_MASK) >> VDLA_MMU_FAULT_REASON_SHIFT;
	f.engine = (status & VDLA_MMU_FAULT_ENGINE_MASK) >> VDLA_MMU_FAULT_ENGINE_SHIFT;
	f.context = (status & VDLA_MMU_FAULT_CONTEXT_MASK) >> VDLA_MMU_FAULT_CONTEXT_SHIFT;
	f.addr = read64(dev, VDLA_REG_MMU_FAULT_ADDR_LO);
	return f;
}

uint32_t faultStatusWord(bool write, uint32_t reason, uint32_t engine, uint32_t context)
{
	return VDLA_MMU_FAULT_VALID | (write ? VDLA_MMU_FAULT_WRITE : 0) |
	       (reason << VDLA_MMU_FAULT_REASON_SHIFT) | (engine << VDLA_MMU_FAULT_ENGINE_SHIFT) |
	       (context << VDLA_MMU_FAULT_CONTEXT_SHIFT);
}

uint64_t pageTableAddress(DeviceHarness &dev, uint64_t root, uint64_t va, unsigned level)
{
	uint64_t table = root;
	for (unsigned l = 0; l < level; l++) {
		unsigned shift = VDLA_PAGE_SHIFT + 9 * (VDLA_PT_LEVELS - 1 - l);
		uint64_t entry;
		std::memcpy(&entry, dev.guest(table + 8 * ((va >> shift) & (VDLA_PT_ENTRIES - 1))),
			    sizeof(entry));
		if (!(entry & VDLA_PTE_VALID))
			return 0;
		table = entry & VDLA_PTE_ADDR_MASK;
	}
	return table;
}

VirtualSpace::VirtualSpace(DeviceHarness &dev, unsigned context)
	: dev_(dev), context_(context), tables_(dev, context)
{
}

void VirtualSpace::map(uint64_t va, uint64_t gpa, uint64_t bytes, bool read, bool write)
{
	tables_.map(va, gpa, bytes, read, write);
	for (uint64_t off = 0; off < bytes; off += VDLA_PAGE_SIZE)
		pages_[va + off] = gpa + off;
}

void VirtualSpace::mapPages(uint64_t va, const std::vector<uint64_t> &gpaPages, bool read,
			    bool write)
{
	for (size_t i = 0; i < gpaPages.size(); i++)
		map(va + i * VDLA_PAGE_SIZE, gpaPages[i], VDLA_PAGE_SIZE, read, write);
}

void VirtualSpace::unmap(uint64_t va, uint64_t bytes)
{
	tables_.unmap(va, bytes);
	for (uint64_t off = 0; off < bytes; off += VDLA_PAGE_SIZE)
		pages_.erase(va + off);
}

uint8_t *VirtualSpace::at(uint64_t va)
{
	auto it = pages_.find(va & ~uint64_t(VDLA_PAGE_SIZE - 1));
	if (it == pages_.end())
		throw std::logic_error("VirtualSpace::at: unmapped address");
	return dev_.guest(it->second + (va & (VDLA_PAGE_SIZE - 1)));
}

static uint64_t bytesToPageEnd(uint64_t va)
{
	return VDLA_PAGE_SIZE - (va & (VDLA_PAGE_SIZE - 1));
}

void VirtualSpace::write(uint64_t va, const std::vector<uint8_t> &bytes)
{
	/* Page by page: at() is a map lookup. */
	for (uint64_t done = 0; done < bytes.size();) {
		uint64_t chunk = std::min(bytes.size() - done, bytesToPageEnd(va + done));
		std::memcpy(at(va + done), &bytes[done], chunk);
		done += chunk;
	}
}

std::vector<uint8_t> VirtualSpace::read(uint64_t va, uint64_t bytes)
{
	std::vector<uint8_t> v(bytes);
	for (uint64_t done = 0; done < bytes;) {
		uint64_t chunk = std::min(bytes - done, bytesToPageEnd(va + done));
		std::memcpy(&v[done], at(va + done), chunk);
		done += chunk;
	}
	return v;
}

std::vector<uint64_t> allocPages(DeviceHarness &dev, unsigned count)
{
	uint64_t base = dev.alloc(uint64_t(count) * VDLA_PAGE_SIZE, VDLA_PAGE_SIZE);
	std::memset(dev.guest(base), kCanary, uint64_t(count) * VDLA_PAGE_SIZE);
	std::vector<uint64_t> pages(count);
	for (unsigned i = 0; i < count; i++)
		pages[i] = base + uint64_t(i) * VDLA_PAGE_SIZE;
	return pages;
}

std::vector<uint64_t> scatter(const std::vector<uint64_t> &pages)
{
	/* std::mt19937 is specified bit for bit, so this is the same everywhere. */
	std::mt19937 rng(20240611);
	std::vector<uint64_t> out = pages;
	if (out.size() < 4)
		return std::vector<uint64_t>(out.rbegin(), out.rend());
	for (;;) {
		for (size_t i = out.size() - 1; i > 0; i--)
			std::swap(out[i], out[rng() % (i + 1)]);
		bool adjacent = false;
		for (size_t i = 1; i < out.size(); i++) {
			if (out[i] == out[i - 1] + VDLA_PAGE_SIZE ||
			    out[i] + VDLA_PAGE_SIZE == out[i - 1])
				adjacent = true;
		}
		if (!adjacent)
			return out;
	}
}

std::vector<uint8_t> guestBytes(DeviceHarness &dev, uint64_t gpa, uint64_t bytes)
{
	return std::vector<uint8_t>(dev.guest(gpa), dev.guest(gpa) + bytes);
}

size_t guestErrorCount(DeviceHarness &dev)
{
	return dev.guestErrors().size();
}

} /* namespace vdla_test */
