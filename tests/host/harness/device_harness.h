/* SPDX-License-Identifier: MIT */
/*
 * DeviceHarness: the vDLA device core in a test process, with fake guest
 * memory, register helpers, tensor descriptors and a page-table builder.
 * Tests program the device only through its registers, as a driver would.
 */
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "tensor_desc.h"
#include "vdla_core.h"
#include "vdla_regs.h"

namespace vdla_test {

/*
 * The compute path VDLA_COMPUTE_PATH names (docs/testing.md), 0 (auto) when
 * it is unset; throws std::runtime_error for a name that is not a path.
 * Every DeviceHarness whose configuration leaves the path at 0 uses it.
 */
uint32_t computePathFromEnvironment();

struct GroupStats {
	uint32_t error;
	uint64_t macs, bytesRead, bytesWritten, timeNs;
};

class DeviceHarness
{
public:
	static constexpr uint64_t kDefaultGuestBytes = 256ull << 20;

	explicit DeviceHarness(const vdla_core_config *config = nullptr,
			       uint64_t guestBytes = kDefaultGuestBytes);
	~DeviceHarness();
	DeviceHarness(const DeviceHarness &) = delete;
	DeviceHarness &operator=(const DeviceHarness &) = delete;

	vdla_core *core() { return core_; }

	/* Registers (BAR0). */
	uint32_t read(uint64_t offset);
	/* Two registers in one 64-bit access (docs/hw-spec.md, register access rules). */
	uint64_t read64(uint64_t offset);
	void write(uint64_t offset, uint32_t value);
	uint32_t readEngine(unsigned engine, uint32_t offset);
	void writeEngine(unsigned engine, uint32_t offset, uint32_t value);
	void write64Engine(unsigned engine, uint32_t offsetLo, uint64_t value);
	void writeTensor(unsigned engine, uint32_t offset, const TensorDesc &t);
	/* Points the D window of @engine at @group (S_POINTER.PRODUCER). */
	void selectGroup(unsigned engine, unsigned group);
	void enable(unsigned engine) { writeEngine(engine, VDLA_D_OP_ENABLE, 1); }
	uint32_t groupState(unsigned engine, unsigned group);
	/* The group S_POINTER.CONSUMER points at: the one the engine takes next. */
	unsigned consumerGroup(unsigned engine);
	GroupStats stats(unsigned engine, unsigned group);

	/*
	 * Waits until every bit of @mask is set in INT_STATUS (the harness
	 * enables all interrupts at construction); false on timeout.
	 */
	bool waitInterrupts(uint32_t mask,
			    std::chrono::milliseconds timeout = std::chrono::seconds(20));
	/* Waits until IDLE shows every engine idle. */
	bool waitIdle(std::chrono::milliseconds timeout = std::chrono::seconds(20));
	/* Acknowledges @mask in INT_STATUS. */
	void ackInterrupts(uint32_t mask) { write(VDLA_REG_INT_STATUS, mask); }
	/* MSI-X messages the device has sent. */
	unsigned messages() const { return messages_.load(); }

	/* Guest memory: physical addresses [0, guestBytes). */
	uint8_t *guest(uint64_t gpa) { return memory_.data() + gpa; }
	uint64_t guestBytes() const { return memory_.size(); }
	/* Bump allocator over guest memory; never returns 0. */
	uint64_t alloc(uint64_t bytes, uint64_t align = 64);
	/* The SRAM (BAR2) and its device address. */
	uint8_t *sram() { return vdla_core_sram(core_); }
	static uint64_t sramAddr(uint64_t offset) { return VDLA_SRAM_BASE + offset; }

	/* Fails DMA to guest-physical range [gpa, gpa+len) (simulates a hole). */
	void setDmaHole(uint64_t gpa, uint64_t len);
	/*
	 * Refuses to map [gpa, gpa+len) while dma_valid still says it is
	 * memory: the guest changed its memory map between the device's check
	 * of an output and its write, or the host cannot map an input (the
	 * device then copies it).
	 */
	void setMapHole(uint64_t gpa, uint64_t len);
	/*
	 * Calls @hook (on the engine worker's thread) after each DMA read the
	 * device makes, with its range: a test can change memory or registers
	 * at an exact point of an operation. An empty function removes it.
	 */
	void setDmaReadHook(std::function<void(uint64_t gpa, uint64_t len)> hook);
	/*
	 * Read-only maps of guest memory the device asked for (inputs it reads
	 * in place), and how many it holds now.
	 */
	unsigned inputMaps() const { return inputMaps_.load(); }
	int inputMapsHeld() const { return inputMapsHeld_.load(); }
	/* Calls @hook when the device asks for an MSI-X message, before counting it. */
	void setRaiseHook(std::function<void()> hook);

	/* Every event the core reported to the host's tracing, in order. */
	std::vector<vdla_trace> traces();

	std::vector<std::string> guestErrors();
	void clearGuestErrors();

	/* Device-time clock the host reports; tests may move it. */
	std::atomic<uint64_t> nowNs{ 1000 };

private:
	static void raiseIrq(void *opaque, unsigned int vector);
	static uint64_t clockNs(void *opaque);
	static void guestError(void *opaque, const char *fmt, va_list args);
	static int dmaRead(void *opaque, uint64_t addr, void *buf, uint64_t len);
	static void *dmaMap(void *opaque, uint64_t addr, uint64_t len, bool write);
	static void dmaUnmap(void *opaque, void *ptr, uint64_t len, bool write, uint64_t written);
	static bool dmaValid(void *opaque, uint64_t addr, uint64_t len);
	bool dmaAllowed(uint64_t addr, uint64_t len) const;

	vdla_core *core_ = nullptr;
	std::vector<uint8_t> memory_;
	uint64_t nextFree_ = 0x10000;
	uint64_t holeStart_ = 0, holeLen_ = 0;
	uint64_t mapHoleStart_ = 0, mapHoleLen_ = 0;
	std::function<void(uint64_t, uint64_t)> readHook_;
	std::function<void()> raiseHook_;
	std::vector<vdla_trace> traces_;
	static void trace(void *opaque, const vdla_trace *event);

	std::mutex lock_;
	std::condition_variable irqCv_;
	std::atomic<unsigned> messages_{ 0 };
	std::atomic<unsigned> inputMaps_{ 0 };
	std::atomic<int> inputMapsHeld_{ 0 };
	std::vector<std::string> errors_;
};

/*
 * Writes a BDMA copy into the D window of @group (docs/hw-spec.md, "BDMA").
 * @copy is any struct with the register fields src, dst, lineBytes, lines,
 * srcLineStride, dstLineStride, surfaces, srcSurfStride and dstSurfStride.
 */
template<typename Copy>
void programBdma(DeviceHarness &dev, unsigned group, const Copy &copy, uint32_t context = 0,
		 uint32_t cfg = 0)
{
	const unsigned e = VDLA_ENGINE_BDMA;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CONTEXT, context);
	dev.writeEngine(e, VDLA_D_CFG, cfg);
	dev.write64Engine(e, VDLA_BDMA_SRC_ADDR_LO, copy.src);
	dev.write64Engine(e, VDLA_BDMA_DST_ADDR_LO, copy.dst);
	dev.writeEngine(e, VDLA_BDMA_LINE_BYTES, copy.lineBytes);
	dev.writeEngine(e, VDLA_BDMA_LINES, copy.lines);
	dev.writeEngine(e, VDLA_BDMA_SRC_LINE_STRIDE, copy.srcLineStride);
	dev.writeEngine(e, VDLA_BDMA_DST_LINE_STRIDE, copy.dstLineStride);
	dev.writeEngine(e, VDLA_BDMA_SURFACES, copy.surfaces);
	dev.writeEngine(e, VDLA_BDMA_SRC_SURF_STRIDE, copy.srcSurfStride);
	dev.writeEngine(e, VDLA_BDMA_DST_SURF_STRIDE, copy.dstSurfStride);
}

/*
 * Builds device page tables for one MMU context in guest memory, in the
 * format of docs/hw-spec.md ("Page tables").
 */
class PageTables
{
public:
	PageTables(DeviceHarness &dev, unsigned context);

	/* Maps [va, va+bytes) to [gpa, gpa+bytes); both page-aligned. */
	void map(uint64_t va, uint64_t gpa, uint64_t bytes, bool read = true, bool write = true);
	void unmap(uint64_t va, uint64_t bytes);
	/* Enables the context (CTX_BASE) and the MMU, and invalidates. */
	void activate();
	uint64_t root() const { return root_; }

private:
	uint64_t *entry(uint64_t va, bool create);

	DeviceHarness &dev_;
	unsigned context_;
	uint64_t root_;
};

} /* namespace vdla_test */
