/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the device-level tests: BDMA and RUBIK copies programmed
 * through registers, waiting on device state, a model of what the device
 * sees through the MMU, and MMU fault decoding. Everything here follows
 * docs/hw-spec.md; nothing looks inside the core.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "device_harness.h"

namespace vdla_test {

/*
 * Guest memory for device tests: the harness default (256 MiB) costs a
 * quarter of a second to zero per test, and no test here needs more.
 */
constexpr uint64_t kDeviceTestGuestBytes = 32ull << 20;

constexpr uint32_t kBdma = VDLA_ENGINE_BDMA;
constexpr uint32_t kRubik = VDLA_ENGINE_RUBIK;
constexpr uint32_t kAllEnginesIdle = (1u << VDLA_NUM_ENGINES) - 1;
constexpr uint8_t kCanary = 0xcd;

using std::chrono::milliseconds;

/*
 * Polls @pred until it holds or @timeout passes. Polling is how the tests
 * synchronise with the device's worker threads; the timeout only bounds a
 * failure.
 */
bool waitUntil(const std::function<bool()> &pred, milliseconds timeout = milliseconds(10000));

/* Keeps polling for @duration and returns false as soon as @pred fails. */
bool holdsFor(const std::function<bool()> &pred, milliseconds duration);

/* A BDMA operation, field by field as in the spec's BDMA register table. */
struct BdmaOp {
	uint64_t src = 0, dst = 0;
	uint32_t lineBytes = 0, lines = 1;
	uint32_t srcLineStride = 0, dstLineStride = 0;
	uint32_t surfaces = 1;
	uint32_t srcSurfStride = 0, dstSurfStride = 0;
	uint32_t context = 0;

	static BdmaOp linear(uint64_t src, uint64_t dst, uint32_t bytes, uint32_t context = 0);
	uint64_t totalBytes() const { return uint64_t(lineBytes) * lines * surfaces; }
	/* Calls f(srcOffset, dstOffset, bytes) for every line the copy moves. */
	void forEachLine(const std::function<void(uint64_t, uint64_t, uint32_t)> &f) const;
	uint64_t srcExtent() const;
	uint64_t dstExtent() const;
};

/* Points the D window at @group and writes every register of @op into it. */
void programBdma(DeviceHarness &dev, unsigned group, const BdmaOp &op);
/* programBdma() and D_OP_ENABLE. */
void startBdma(DeviceHarness &dev, unsigned group, const BdmaOp &op);

/*
 * A plain copy of @bytes bytes on RUBIK (engine 5): RESHAPE of an INT8
 * (1, 1, rows, bytes / rows) tensor to the same shape, which the spec
 * defines as moving the k-th element to the k-th element. BLOCK and PERM
 * are set to valid values although RESHAPE does not use them, so the test
 * does not depend on whether the device validates them for this mode.
 */
void startRubikCopy(DeviceHarness &dev, unsigned group, uint64_t src, uint64_t dst,
		    uint32_t rows, uint32_t rowBytes, uint32_t context = 0);

/* Whether @engine has no group PENDING or RUNNING (the IDLE register). */
bool engineIdle(DeviceHarness &dev, unsigned engine);
bool waitEngineIdle(DeviceHarness &dev, unsigned engine,
		    milliseconds timeout = milliseconds(10000));
bool waitGroupState(DeviceHarness &dev, unsigned engine, unsigned group, uint32_t state,
		    milliseconds timeout = milliseconds(10000));
/*
 * Waits for a group just enabled to leave PENDING and returns whether it is
 * RUNNING; fails at once, not at a timeout, if it finished already.
 */
bool waitRunning(DeviceHarness &dev, unsigned engine, unsigned group,
		 milliseconds timeout = milliseconds(5000));
/* Waits until the MSI-X message count reaches @count. */
bool waitMessages(DeviceHarness &dev, unsigned count, milliseconds timeout = milliseconds(10000));

/*
 * Starts @op in @group and waits until it has finished: the engine is idle
 * and the group's DONE or ERROR(0) bit is pending. Returns the group state.
 */
uint32_t runBdma(DeviceHarness &dev, unsigned group, const BdmaOp &op);

/* Deterministic non-trivial byte patterns, different for each seed. */
void fillPattern(uint8_t *p, uint64_t bytes, uint32_t seed);
std::vector<uint8_t> pattern(uint64_t bytes, uint32_t seed);

/* The MMU fault registers, decoded. */
struct LatchedFault {
	bool valid;
	bool write;
	uint32_t reason;
	uint32_t engine;
	uint32_t context;
	uint64_t addr;
};
LatchedFault readMmuFault(DeviceHarness &dev);
uint32_t faultStatusWord(bool write, uint32_t reason, uint32_t engine, uint32_t context);

/* Reads a 64-bit _LO/_HI register pair, _LO first (it latches _HI). */
uint64_t read64(DeviceHarness &dev, uint64_t offsetLo);

/*
 * Address of the table of level @level (0 = root) that the walk for @va uses
 * in the tables rooted at @root, read back from guest memory; 0 if an entry
 * on the way is not VALID.
 */
uint64_t pageTableAddress(DeviceHarness &dev, uint64_t root, uint64_t va, unsigned level);

/*
 * The device's view of one MMU context: PageTables plus a record of every
 * mapping, so tests can read and write "device virtual" bytes from the host
 * and compute the expected result of an operation.
 */
class VirtualSpace
{
public:
	VirtualSpace(DeviceHarness &dev, unsigned context);

	void map(uint64_t va, uint64_t gpa, uint64_t bytes, bool read = true, bool write = true);
	/* Maps consecutive virtual pages to the given guest pages, in order. */
	void mapPages(uint64_t va, const std::vector<uint64_t> &gpaPages, bool read = true,
		      bool write = true);
	void unmap(uint64_t va, uint64_t bytes);
	void activate() { tables_.activate(); }

	/* Host pointer to the byte the device sees at @va; must be mapped. */
	uint8_t *at(uint64_t va);
	void write(uint64_t va, const std::vector<uint8_t> &bytes);
	std::vector<uint8_t> read(uint64_t va, uint64_t bytes);

	PageTables &tables() { return tables_; }
	unsigned context() const { return context_; }

private:
	DeviceHarness &dev_;
	unsigned context_;
	PageTables tables_;
	std::map<uint64_t, uint64_t> pages_;
};

/* Allocates @count page-aligned guest pages, filled with kCanary. */
std::vector<uint64_t> allocPages(DeviceHarness &dev, unsigned count);

/*
 * A fixed permutation of @pages that never keeps two neighbours adjacent,
 * so virtually contiguous ranges land on scattered guest pages.
 */
std::vector<uint64_t> scatter(const std::vector<uint64_t> &pages);

/* The bytes of [gpa, gpa + bytes) in guest memory. */
std::vector<uint8_t> guestBytes(DeviceHarness &dev, uint64_t gpa, uint64_t bytes);

/* Number of guest errors logged since the last clearGuestErrors(). */
size_t guestErrorCount(DeviceHarness &dev);

} /* namespace vdla_test */
