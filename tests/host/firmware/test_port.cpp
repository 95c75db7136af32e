/* SPDX-License-Identifier: MIT */
/*
 * The port layer of the firmware core for the host tests (dla_port.h), and
 * the polling loop that stands in for the driver's interrupt handling.
 */
#include "test_port.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace vdla_fwtest {

namespace {

std::atomic<uint64_t> errorCalls{ 0 };

bool debugOutput()
{
	/* Read once: the messages may come from any thread. */
	static const bool on = std::getenv("VDLA_FW_DEBUG") != nullptr;
	return on;
}

void message(const char *level, const char *fmt, va_list args)
{
	if (!debugOutput() || !fmt)
		return;
	std::fprintf(stderr, "vdla-fw %s: ", level);
	std::vfprintf(stderr, fmt, args);
	size_t len = std::strlen(fmt);
	if (!len || fmt[len - 1] != '\n')
		std::fputc('\n', stderr);
}

FwDevice *deviceOf(void *driverContext)
{
	return static_cast<FwDevice *>(driverContext);
}

/*
 * The entry @index of @taskData's address list, or nullptr: the port
 * answers a bad index with an error, never with a guess.
 */
const AddressEntry *entryOf(void *taskData, uint16_t index)
{
	auto *task = static_cast<TestTask *>(taskData);
	if (!task || index >= task->addresses.size())
		return nullptr;
	return &task->addresses[index];
}

/* Host pointer to [offset, offset + size) of an entry, bounds checked. */
uint8_t *entryRange(
	void *driverContext, void *taskData, uint16_t index, uint64_t offset, uint64_t size)
{
	const AddressEntry *e = entryOf(taskData, index);
	if (!e || !driverContext)
		return nullptr;
	if (offset > e->size || size > e->size - offset)
		return nullptr;
	return deviceOf(driverContext)->hostRange(e->devAddr + offset, size);
}

} /* namespace */

/* ---- TestTask ---------------------------------------------------------- */

dla_task_config TestTask::config()
{
	size_t bytes = dla_task_state_size(stateOps);
	/*
	 * Never reallocate an area the core may still hold (a stopped task);
	 * only grow one that is too small for a new stateOps.
	 */
	if (state.size() * sizeof(uint64_t) < bytes)
		state.assign((bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t), 0);
	dla_task_config c = {};
	c.task_data = this;
	c.flags = flags;
	c.num_addresses = uint16_t(addresses.size());
	c.descriptor = descriptor;
	c.context = context;
	c.state = state.data();
	c.state_size = state.size() * sizeof(uint64_t);
	return c;
}

/* ---- FwDevice ---------------------------------------------------------- */

FwDevice::FwDevice(uint64_t guestBytes, const vdla_core_config *config)
	: harness_(std::make_unique<DeviceHarness>(config, guestBytes))
{
	sramSize_ = harness_->read(VDLA_REG_SRAM_SIZE);
	size_t bytes = dla_engine_size();
	engineMemory_.emplace_back((bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t) + 1, 0);
	registerStatus_ = dla_register_driver(engineMemory_.back().data(), this, &engine_);
	/* Tests count the accesses of tasks, not of the registration. */
	resetRegCounts();
}

FwDevice::~FwDevice()
{
	/* The harness stops the device's workers before the engine memory goes. */
	harness_.reset();
}

dla_engine *FwDevice::registerExtraEngine()
{
	size_t bytes = dla_engine_size();
	engineMemory_.emplace_back((bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t) + 1, 0);
	dla_engine *engine = nullptr;
	if (dla_register_driver(engineMemory_.back().data(), this, &engine) != DLA_SUCCESS)
		return nullptr;
	return engine;
}

void FwDevice::recordWrites(bool on)
{
	std::lock_guard<std::mutex> guard(recordLock_);
	recorded_.clear();
	recording_ = on;
}

std::vector<std::pair<uint32_t, uint32_t>> FwDevice::recordedWrites()
{
	std::lock_guard<std::mutex> guard(recordLock_);
	return recorded_;
}

uint8_t *FwDevice::hostRange(uint64_t devAddr, uint64_t size)
{
	if (devAddr >= VDLA_SRAM_BASE) {
		uint64_t off = devAddr - VDLA_SRAM_BASE;
		if (off > sramSize_ || size > sramSize_ - off)
			return nullptr;
		return harness_->sram() + off;
	}
	uint64_t bytes = harness_->guestBytes();
	if (devAddr > bytes || size > bytes - devAddr)
		return nullptr;
	return harness_->guest(devAddr);
}

uint64_t FwDevice::allocSram(uint64_t bytes, uint64_t align)
{
	uint64_t off = (sramNext_ + align - 1) & ~(align - 1);
	if (off > sramSize_ || bytes > sramSize_ - off)
		throw std::runtime_error("FwDevice::allocSram: SRAM exhausted");
	sramNext_ = off + bytes;
	return off;
}

void FwDevice::injectFault(unsigned engine, uint32_t mode, uint32_t count, uint32_t delayUs)
{
	/* Straight to the device: these are the test's writes, not the port's. */
	harness_->write(VDLA_REG_FI_MODE(engine), mode);
	harness_->write(VDLA_REG_FI_COUNT(engine), count);
	harness_->write(VDLA_REG_FI_DELAY_US(engine), delayUs);
}

uint32_t FwDevice::portRead(uint32_t addr)
{
	regReads_++;
	return harness_->read(addr);
}

uint64_t FwDevice::portRead64(uint32_t addr)
{
	regReads_++;
	return harness_->read64(addr);
}

void FwDevice::portWrite(uint32_t addr, uint32_t value)
{
	regWrites_++;
	if (recording_) {
		std::lock_guard<std::mutex> guard(recordLock_);
		recorded_.emplace_back(addr, value);
	}
	harness_->write(addr, value);
}

uint64_t firmwareErrorCount()
{
	return errorCalls.load();
}

/* ---- Running tasks ----------------------------------------------------- */

bool pollOnce(FwDevice &dev, dla_engine *engine, TaskEnd &end)
{
	(void)dev;
	dla_isr_handler(engine);
	uint32_t complete = 0;
	int32_t rc = dla_process_events(engine, &complete);
	if (rc != DLA_SUCCESS)
		end.processStatus = rc;
	return complete != 0;
}

int32_t taskResult(dla_engine *engine, struct dla_task_result *result)
{
	return dla_get_task_result(engine, result);
}

static void fetchResult(dla_engine *engine, TaskEnd &end)
{
	end.resultStatus = taskResult(engine, &end.result);
}

TaskEnd waitTask(
	FwDevice &dev, dla_engine *engine, std::chrono::milliseconds timeout, const PollHook &hook)
{
	TaskEnd end;
	end.startStatus = DLA_SUCCESS;
	if (!engine)
		engine = dev.engine();
	auto start = std::chrono::steady_clock::now();
	unsigned seen = dev.dev().messages();
	for (;;) {
		if (pollOnce(dev, engine, end)) {
			end.ended = true;
			break;
		}
		if (end.processStatus != DLA_SUCCESS)
			break;
		if (hook && !hook())
			break;
		auto now = std::chrono::steady_clock::now();
		if (now - start > timeout) {
			end.timedOut = true;
			ADD_FAILURE() << "the task did not end within " << timeout.count()
				      << " ms; IDLE " << std::hex << dev.dev().read(VDLA_REG_IDLE)
				      << ", INT_STATUS " << dev.dev().read(VDLA_REG_INT_STATUS)
				      << std::dec << "; aborting it";
			fetchResult(engine, end);
			dla_abort_task(engine);
			end.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
				now - start);
			return end;
		}
		/* Sleep only if the device sent nothing since the last round. */
		unsigned messages = dev.dev().messages();
		if (messages == seen)
			std::this_thread::sleep_for(std::chrono::microseconds(50));
		seen = messages;
	}
	end.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
		std::chrono::steady_clock::now() - start);
	fetchResult(engine, end);
	return end;
}

TaskEnd runTask(FwDevice &dev, TestTask &task, std::chrono::milliseconds timeout,
	const PollHook &hook, dla_engine *engine)
{
	if (!engine)
		engine = dev.engine();
	dla_task_config config = task.config();
	int32_t rc = dla_execute_task(engine, &config);
	if (rc != DLA_SUCCESS) {
		TaskEnd end;
		end.startStatus = rc;
		fetchResult(engine, end);
		return end;
	}
	return waitTask(dev, engine, timeout, hook);
}

TaskEnd resumeTask(FwDevice &dev, std::chrono::milliseconds timeout, const PollHook &hook)
{
	int32_t rc = dla_resume_task(dev.engine());
	if (rc != DLA_SUCCESS) {
		TaskEnd end;
		end.startStatus = rc;
		fetchResult(dev.engine(), end);
		return end;
	}
	return waitTask(dev, dev.engine(), timeout, hook);
}

std::vector<TaskEnd> runTasksTogether(const std::vector<std::pair<FwDevice *, TestTask *>> &runs,
	std::chrono::milliseconds timeout)
{
	std::vector<TaskEnd> ends(runs.size());
	std::vector<bool> active(runs.size(), false);
	for (size_t i = 0; i < runs.size(); i++) {
		dla_task_config config = runs[i].second->config();
		ends[i].startStatus = dla_execute_task(runs[i].first->engine(), &config);
		active[i] = ends[i].startStatus == DLA_SUCCESS;
	}
	auto start = std::chrono::steady_clock::now();
	for (;;) {
		bool any = false, progress = false;
		for (size_t i = 0; i < runs.size(); i++) {
			if (!active[i])
				continue;
			FwDevice &dev = *runs[i].first;
			unsigned before = dev.dev().messages();
			if (pollOnce(dev, dev.engine(), ends[i])) {
				ends[i].ended = true;
				active[i] = false;
			} else if (ends[i].processStatus != DLA_SUCCESS) {
				active[i] = false;
			} else {
				any = true;
			}
			progress |= dev.dev().messages() != before;
		}
		if (!any)
			break;
		if (std::chrono::steady_clock::now() - start > timeout) {
			ADD_FAILURE() << "the tasks did not end within " << timeout.count()
				      << " ms; aborting them";
			for (size_t i = 0; i < runs.size(); i++) {
				if (!active[i])
					continue;
				ends[i].timedOut = true;
				fetchResult(runs[i].first->engine(), ends[i]);
				dla_abort_task(runs[i].first->engine());
			}
			return ends;
		}
		if (!progress)
			std::this_thread::sleep_for(std::chrono::microseconds(50));
	}
	auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
		std::chrono::steady_clock::now() - start);
	for (size_t i = 0; i < runs.size(); i++) {
		ends[i].elapsed = elapsed;
		fetchResult(runs[i].first->engine(), ends[i]);
	}
	return ends;
}

const char *statusName(int32_t status)
{
	switch (status) {
	case DLA_SUCCESS:
		return "SUCCESS";
	case DLA_ERR_INVALID_TASK:
		return "INVALID_TASK";
	case DLA_ERR_NO_MEMORY:
		return "NO_MEMORY";
	case DLA_ERR_BUSY:
		return "BUSY";
	case DLA_ERR_NO_TASK:
		return "NO_TASK";
	case DLA_ERR_BAD_STATE:
		return "BAD_STATE";
	case DLA_ERR_HARDWARE:
		return "HARDWARE";
	case DLA_ERR_PORT:
		return "PORT";
	case DLA_ERR_BAD_ARGUMENT:
		return "BAD_ARGUMENT";
	}
	return "?";
}

const char *taskStateName(uint32_t state)
{
	static const char *names[]
		= { "NONE", "RUNNING", "STOPPING", "STOPPED", "COMPLETED", "FAILED", "ABORTED" };
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

static const char *safe(const char *s)
{
	return s ? s : "(null)";
}

std::string describe(const TaskEnd &end)
{
	std::ostringstream s;
	const struct dla_task_result &r = end.result;
	s << "start " << statusName(end.startStatus) << " (" << end.startStatus << ")";
	if (end.processStatus != DLA_SUCCESS)
		s << ", dla_process_events " << statusName(end.processStatus) << " ("
		  << end.processStatus << ")";
	s << (end.ended ? ", ended" : ", not ended") << (end.timedOut ? " (timed out)" : "")
	  << "; result " << statusName(end.resultStatus) << ": state " << taskStateName(r.state)
	  << ", status " << statusName(int32_t(r.status)) << ", ops_completed " << r.ops_completed;
	if (r.status == DLA_ERR_INVALID_TASK) {
		s << ", error_op ";
		if (r.error_op == DLA_ERROR_IN_HEADER)
			s << "HEADER";
		else
			s << r.error_op;
		s << ", field " << safe(dla_field_name(r.error_field)) << " (" << r.error_field
		  << "), reason " << safe(dla_reason_name(r.error_reason)) << " (" << r.error_reason
		  << ")";
	}
	if (r.status == DLA_ERR_HARDWARE)
		s << ", hw_op " << r.hw_op << ", hw_error " << r.hw_error << ", fault_status 0x"
		  << std::hex << r.fault_status << ", fault_addr 0x" << r.fault_addr << std::dec;
	return s.str();
}

::testing::AssertionResult completed(const TaskEnd &end, uint32_t numOps)
{
	const struct dla_task_result &r = end.result;
	if (end.startStatus == DLA_SUCCESS && end.ended && end.processStatus == DLA_SUCCESS
		&& end.resultStatus == DLA_SUCCESS && r.state == DLA_TASK_COMPLETED
		&& r.status == DLA_SUCCESS && r.ops_completed == numOps)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
		<< "expected COMPLETED with " << numOps << " operations, got: " << describe(end);
}

bool waitUntil(const std::function<bool()> &pred, std::chrono::milliseconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	while (!pred()) {
		if (std::chrono::steady_clock::now() >= deadline)
			return false;
		std::this_thread::sleep_for(std::chrono::microseconds(50));
	}
	return true;
}

} /* namespace vdla_fwtest */

/* ---- The port layer (dla_port.h) --------------------------------------- */

using vdla_fwtest::deviceOf;
using vdla_fwtest::entryOf;
using vdla_fwtest::entryRange;

extern "C" {

uint32_t dla_reg_read(void *driver_context, uint32_t addr)
{
	return deviceOf(driver_context)->portRead(addr);
}

uint64_t dla_reg_read64(void *driver_context, uint32_t addr)
{
	return deviceOf(driver_context)->portRead64(addr);
}

void dla_reg_write(void *driver_context, uint32_t addr, uint32_t value)
{
	deviceOf(driver_context)->portWrite(addr, value);
}

int32_t dla_data_read(void *driver_context, void *task_data, uint16_t index, uint64_t offset,
	void *buf, uint32_t size)
{
	uint8_t *p = entryRange(driver_context, task_data, index, offset, size);
	if (!p || (!buf && size))
		return -1;
	std::memcpy(buf, p, size);
	return 0;
}

int32_t dla_data_write(void *driver_context, void *task_data, uint16_t index, uint64_t offset,
	const void *buf, uint32_t size)
{
	uint8_t *p = entryRange(driver_context, task_data, index, offset, size);
	if (!p || (!buf && size))
		return -1;
	std::memcpy(p, buf, size);
	return 0;
}

int32_t dla_get_dma_address(
	void *driver_context, void *task_data, uint16_t index, void *dst, uint32_t destination)
{
	if (!dst)
		return -1;
	if (destination == DESTINATION_DMA)
		return dla_read_dma_address(
			driver_context, task_data, index, static_cast<uint64_t *>(dst));
	if (destination == DESTINATION_PROCESSOR)
		return dla_read_cpu_address(
			driver_context, task_data, index, static_cast<void **>(dst));
	return -1;
}

int32_t dla_read_dma_address(
	void *driver_context, void *task_data, uint16_t index, uint64_t *address)
{
	const vdla_fwtest::AddressEntry *e = entryOf(task_data, index);
	if (!e || !driver_context || !address)
		return -1;
	/* The MMU stays off in these tests: device address = guest-physical. */
	*address = e->devAddr;
	return 0;
}

int32_t dla_read_cpu_address(void *driver_context, void *task_data, uint16_t index, void **address)
{
	const vdla_fwtest::AddressEntry *e = entryOf(task_data, index);
	if (!e || !driver_context || !address)
		return -1;
	uint8_t *p = deviceOf(driver_context)->hostRange(e->devAddr, e->size);
	if (!p)
		return -1;
	*address = p;
	return 0;
}

int32_t dla_get_buffer_size(void *driver_context, void *task_data, uint16_t index, uint64_t *size)
{
	const vdla_fwtest::AddressEntry *e = entryOf(task_data, index);
	if (!e || !driver_context || !size)
		return -1;
	*size = e->size;
	return 0;
}

uint64_t dla_get_time_us(void *driver_context)
{
	(void)driver_context;
	return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
		std::chrono::steady_clock::now().time_since_epoch())
				.count());
}

void *dla_memset(void *s, int32_t c, size_t n)
{
	return std::memset(s, c, n);
}

void *dla_memcpy(void *dest, const void *src, size_t n)
{
	return std::memcpy(dest, src, n);
}

void dla_debug(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	vdla_fwtest::message("debug", fmt, args);
	va_end(args);
}

void dla_info(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	vdla_fwtest::message("info", fmt, args);
	va_end(args);
}

void dla_warn(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	vdla_fwtest::message("warn", fmt, args);
	va_end(args);
}

void dla_error(const char *fmt, ...)
{
	vdla_fwtest::errorCalls++;
	va_list args;
	va_start(args, fmt);
	vdla_fwtest::message("error", fmt, args);
	va_end(args);
}

} /* extern "C" */
