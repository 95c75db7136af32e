/* SPDX-License-Identifier: MIT */
/*
 * The firmware core's port layer (firmware/include/dla_port.h) for the host
 * tests, and the devices and tasks it serves.
 *
 * A FwDevice is one vDLA: a DeviceHarness (the device core in this process,
 * with fake guest memory) plus the memory of its firmware engine context.
 * The port's driver_context is the FwDevice, so several devices run side by
 * side in one process, as docs/firmware.md requires of the core. A TestTask
 * is a task's address list; the port's task_data points at it. The device
 * MMU stays off, so a device address is a guest-physical address, or
 * VDLA_SRAM_BASE + offset for the SRAM.
 *
 * The device calls back from its worker threads only to count messages; the
 * tests drive the firmware from the test thread by polling (runTask), which
 * makes every test deterministic in what it checks, whatever the timing.
 */
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "device_harness.h"
#include "vdla_regs.h"

/* The core's headers are C without C++ guards. */
extern "C" {
#include "dla_interface.h"
#include "dla_port.h"
}

namespace vdla_fwtest {

using vdla_test::DeviceHarness;

/* Guest memory of one test device: enough for every test, quick to zero. */
constexpr uint64_t kGuestBytes = 32ull << 20;
constexpr uint32_t kAllEnginesIdle = (1u << VDLA_NUM_ENGINES) - 1;

/* One entry of a task's address list: a device address and a size. */
struct AddressEntry {
	uint64_t devAddr = 0;
	uint64_t size = 0;
};

/*
 * A task as the host holds it: the address list (the port's task_data), the
 * descriptor's index, the MMU context and the state area the core keeps the
 * task in, which must live as long as the task (across stop and resume).
 */
struct TestTask {
	std::vector<AddressEntry> addresses;
	uint16_t descriptor = 0;
	uint32_t context = 0;
	/* dla_task_config.flags: the tests check statistics unless told not to. */
	uint32_t flags = DLA_TASK_STATISTICS;
	/* Operations the state area is sized for (dla_task_state_size). */
	uint32_t stateOps = 0;
	/* uint64_t so that the area is 8-aligned. */
	std::vector<uint64_t> state;

	/* The dla_task_config of this task; (re)sizes the state area. */
	dla_task_config config();
};

/* One device and its firmware engine context. */
class FwDevice
{
public:
	explicit FwDevice(
		uint64_t guestBytes = kGuestBytes, const vdla_core_config *config = nullptr);
	~FwDevice();
	FwDevice(const FwDevice &) = delete;
	FwDevice &operator=(const FwDevice &) = delete;

	DeviceHarness &dev() { return *harness_; }
	dla_engine *engine() { return engine_; }
	int32_t registerStatus() const { return registerStatus_; }

	/*
	 * A further engine context on the same device (same driver_context),
	 * so that a test can run a second task while the first one is
	 * stopped. The FwDevice owns its memory.
	 */
	dla_engine *registerExtraEngine();

	/* Register accesses through the port since the last reset. */
	uint64_t regWrites() const { return regWrites_.load(); }
	uint64_t regReads() const { return regReads_.load(); }
	void resetRegCounts()
	{
		regWrites_ = 0;
		regReads_ = 0;
	}
	/* Records every register write (address, value) while enabled. */
	void recordWrites(bool on);
	std::vector<std::pair<uint32_t, uint32_t>> recordedWrites();

	/*
	 * Host pointer to [devAddr, devAddr + size) if all of it is guest
	 * memory or all of it SRAM; nullptr otherwise.
	 */
	uint8_t *hostRange(uint64_t devAddr, uint64_t size);
	uint64_t sramSize() const { return sramSize_; }

	/* Bump allocator over the SRAM; returns an offset into it. */
	uint64_t allocSram(uint64_t bytes, uint64_t align = 64);

	/* Arms fault injection on @engine through the device's FI window. */
	void injectFault(unsigned engine, uint32_t mode, uint32_t count, uint32_t delayUs = 0);

	/* Port layer backends. */
	uint32_t portRead(uint32_t addr);
	uint64_t portRead64(uint32_t addr);
	void portWrite(uint32_t addr, uint32_t value);

private:
	std::unique_ptr<DeviceHarness> harness_;
	std::vector<std::vector<uint64_t>> engineMemory_;
	dla_engine *engine_ = nullptr;
	int32_t registerStatus_ = -1;
	uint64_t sramSize_ = 0;
	uint64_t sramNext_ = 0;
	std::atomic<uint64_t> regWrites_{ 0 };
	std::atomic<uint64_t> regReads_{ 0 };
	std::atomic<bool> recording_{ false };
	std::mutex recordLock_;
	std::vector<std::pair<uint32_t, uint32_t>> recorded_;
};

/* dla_error calls since the process started (any device). */
uint64_t firmwareErrorCount();

/* ---- Running tasks ----------------------------------------------------- */

/* How a task ended, as the test thread saw it. */
struct TaskEnd {
	/* dla_execute_task's (or dla_resume_task's) return. */
	int32_t startStatus = -1;
	/* The last non-success return of dla_process_events, if any. */
	int32_t processStatus = DLA_SUCCESS;
	/* dla_process_events reported the task ended. */
	bool ended = false;
	bool timedOut = false;
	int32_t resultStatus = -1; /* dla_get_task_result's return */
	struct dla_task_result result = {};
	std::chrono::microseconds elapsed{ 0 };
};

constexpr std::chrono::milliseconds kTaskTimeout{ 20000 };

/*
 * Called after each round of dla_isr_handler and dla_process_events while
 * a task runs; return false to stop waiting (the task is left as it is).
 */
using PollHook = std::function<bool()>;

/*
 * One round of the interrupt path: dla_isr_handler, then
 * dla_process_events. Returns true when the task ended; records a failed
 * dla_process_events in @end.
 */
bool pollOnce(FwDevice &dev, dla_engine *engine, TaskEnd &end);

/*
 * Polls the interrupt path until the task on @engine ends: isr, events,
 * a ~50 us sleep when the device sent no message meanwhile, repeat. After
 * @timeout the test fails (never hangs) and the task is aborted.
 */
TaskEnd waitTask(FwDevice &dev, dla_engine *engine = nullptr,
	std::chrono::milliseconds timeout = kTaskTimeout, const PollHook &hook = {});

/* dla_execute_task, then waitTask unless the start failed. */
TaskEnd runTask(FwDevice &dev, TestTask &task, std::chrono::milliseconds timeout = kTaskTimeout,
	const PollHook &hook = {}, dla_engine *engine = nullptr);

/* dla_resume_task, then waitTask unless it failed. */
TaskEnd resumeTask(
	FwDevice &dev, std::chrono::milliseconds timeout = kTaskTimeout, const PollHook &hook = {});

/*
 * Starts a task on each device and polls all of them, interleaved, until
 * every one ended.
 */
std::vector<TaskEnd> runTasksTogether(const std::vector<std::pair<FwDevice *, TestTask *>> &runs,
	std::chrono::milliseconds timeout = kTaskTimeout);

/* dla_get_task_result(). */
int32_t taskResult(dla_engine *engine, struct dla_task_result *result);

/* Readable names for messages. */
const char *statusName(int32_t status);
const char *taskStateName(uint32_t state);
std::string describe(const TaskEnd &end);

/* The task ended COMPLETED with every one of its @numOps operations done. */
::testing::AssertionResult completed(const TaskEnd &end, uint32_t numOps);

/* Polls @pred (every ~50 us) until it holds or @timeout passes. */
bool waitUntil(const std::function<bool()> &pred,
	std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

} /* namespace vdla_fwtest */
