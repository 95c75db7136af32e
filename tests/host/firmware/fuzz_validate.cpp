/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the firmware core's task validation: the input is
 * a descriptor buffer plus a small address list, dla_execute_task must
 * never crash or read outside the buffers, and it must either accept the
 * task or reject it naming a valid field and reason, having written no
 * register. Accepted tasks get a few rounds of spurious interrupts (any
 * INT_STATUS bits, whether or not the firmware enabled the group) and are
 * then aborted. There is no device: registers are a plain array.
 *
 * Input layout:
 *   byte 0            address-list entries: 1 + (byte % 8)
 *   byte 1            config.descriptor (any value: beyond the list is a case)
 *   byte 2            config.context & 0x1f (16..31 are invalid)
 *   byte 3            INT_STATUS seed for the spurious interrupts
 *   2 bytes per entry little-endian size of each entry (the descriptor's
 *                     entry is resized to the descriptor bytes)
 *   the rest          the descriptor buffer, exactly that many bytes
 * Every buffer is a heap allocation of exactly its size, so that ASan sees
 * any access past it through a CPU pointer.
 *
 * Build and run (from the repository root, clang 14 of Debian 12):
 *
 *   mkdir -p /tmp/fuzz && for f in firmware/[a-z]*.c; do
 *     clang -std=c11 -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
 *       -Ifirmware/include -Iuapi -Iuapi/hw -c $f \
 *       -o /tmp/fuzz/$(basename $f .c).o; done
 *   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -Ifirmware/include -Iuapi -Iuapi/hw \
 *     tests/host/firmware/fuzz_validate.cpp /tmp/fuzz/[a-z]*.o -o /tmp/fuzz/fuzz_validate
 *   mkdir -p /tmp/fuzz/corpus
 *   /tmp/fuzz/fuzz_validate -max_len=16384 -runs=2000000 \
 *     /tmp/fuzz/corpus tests/host/firmware/fuzz_corpus
 *
 * (new inputs go to /tmp/fuzz/corpus; the seeds in fuzz_corpus/ come from
 * gen_fuzz_corpus.cpp). VDLA_FUZZ_VERBOSE=1 prints each input's outcome.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "dla_interface.h"
#include "dla_port.h"
}

#include "drm/vdla_task.h"
#include "vdla_regs.h"

namespace {

struct FuzzDevice {
	uint32_t regs[VDLA_MMIO_SIZE / 4];
	uint64_t writes;
	bool counting;
};

struct FuzzEntry {
	uint8_t *data; /* exactly size bytes, from malloc */
	uint64_t size;
	uint64_t devAddr;
};

struct FuzzTask {
	std::vector<FuzzEntry> entries;
};

FuzzDevice *device(void *ctx)
{
	return static_cast<FuzzDevice *>(ctx);
}

const FuzzEntry *entryOf(void *taskData, uint16_t index)
{
	auto *task = static_cast<FuzzTask *>(taskData);
	if (!task || index >= task->entries.size())
		return nullptr;
	return &task->entries[index];
}

uint8_t *range(void *taskData, uint16_t index, uint64_t offset, uint64_t size)
{
	const FuzzEntry *e = entryOf(taskData, index);
	if (!e || offset > e->size || size > e->size - offset)
		return nullptr;
	return e->data + offset;
}

void check(bool ok, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "fuzz_validate: %s\n", what);
		std::abort();
	}
}

bool verbose()
{
	static const bool on = std::getenv("VDLA_FUZZ_VERBOSE") != nullptr;
	return on;
}

} /* namespace */

extern "C" {

uint32_t dla_reg_read(void *driver_context, uint32_t addr)
{
	if (addr >= VDLA_MMIO_SIZE || (addr & 3))
		return 0;
	return device(driver_context)->regs[addr / 4];
}

uint64_t dla_reg_read64(void *driver_context, uint32_t addr)
{
	return dla_reg_read(driver_context, addr) |
		(uint64_t)dla_reg_read(driver_context, addr + 4) << 32;
}

void dla_reg_write(void *driver_context, uint32_t addr, uint32_t value)
{
	FuzzDevice *d = device(driver_context);
	if (d->counting)
		d->writes++;
	if (addr >= VDLA_MMIO_SIZE || (addr & 3))
		return;
	/* Just enough of the device for the core's own bookkeeping. */
	if (addr == VDLA_REG_INT_STATUS)
		d->regs[addr / 4] &= ~value;
	else if (addr == VDLA_REG_RESET && value == VDLA_RESET_SOFT)
		std::memset(d->regs, 0, sizeof(d->regs));
	else
		d->regs[addr / 4] = value;
}

int32_t dla_data_read(
	void *, void *task_data, uint16_t index, uint64_t offset, void *buf, uint32_t size)
{
	uint8_t *p = range(task_data, index, offset, size);
	if (!p)
		return -1;
	std::memcpy(buf, p, size);
	return 0;
}

int32_t dla_data_write(
	void *, void *task_data, uint16_t index, uint64_t offset, const void *buf, uint32_t size)
{
	uint8_t *p = range(task_data, index, offset, size);
	if (!p)
		return -1;
	std::memcpy(p, buf, size);
	return 0;
}

int32_t dla_read_dma_address(void *, void *task_data, uint16_t index, uint64_t *address)
{
	const FuzzEntry *e = entryOf(task_data, index);
	if (!e || !address)
		return -1;
	*address = e->devAddr;
	return 0;
}

int32_t dla_read_cpu_address(void *, void *task_data, uint16_t index, void **address)
{
	const FuzzEntry *e = entryOf(task_data, index);
	if (!e || !address)
		return -1;
	*address = e->data;
	return 0;
}

int32_t dla_get_dma_address(
	void *driver_context, void *task_data, uint16_t index, void *dst, uint32_t destination)
{
	if (destination == DESTINATION_DMA)
		return dla_read_dma_address(
			driver_context, task_data, index, static_cast<uint64_t *>(dst));
	if (destination == DESTINATION_PROCESSOR)
		return dla_read_cpu_address(
			driver_context, task_data, index, static_cast<void **>(dst));
	return -1;
}

int32_t dla_get_buffer_size(void *, void *task_data, uint16_t index, uint64_t *size)
{
	const FuzzEntry *e = entryOf(task_data, index);
	if (!e || !size)
		return -1;
	*size = e->size;
	return 0;
}

uint64_t dla_get_time_us(void *)
{
	static uint64_t now;
	return now += 10;
}

void *dla_memset(void *s, int32_t c, size_t n)
{
	return std::memset(s, c, n);
}

void *dla_memcpy(void *dest, const void *src, size_t n)
{
	return std::memcpy(dest, src, n);
}

void dla_debug(const char *, ...)
{
}
void dla_info(const char *, ...)
{
}
void dla_warn(const char *, ...)
{
}
void dla_error(const char *, ...)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	unsigned numEntries = 1 + data[0] % 8;
	size_t prefix = 4 + 2 * numEntries;
	if (size < prefix)
		return 0;
	uint16_t descriptor = data[1];
	uint32_t context = data[2] & 0x1f;
	uint32_t irqSeed = data[3];
	const uint8_t *desc = data + prefix;
	size_t descSize = size - prefix;

	FuzzTask task;
	for (unsigned i = 0; i < numEntries; i++) {
		FuzzEntry e;
		e.size = uint64_t(data[4 + 2 * i]) | uint64_t(data[5 + 2 * i]) << 8;
		if (i == descriptor)
			e.size = descSize;
		/* malloc(0) may return NULL; one byte keeps a valid pointer. */
		e.data = static_cast<uint8_t *>(std::malloc(e.size ? e.size : 1));
		if (i == descriptor)
			std::memcpy(e.data, desc, descSize);
		else
			std::memset(e.data, int(i * 37 + 1), e.size);
		e.devAddr = 0x100000ull * (i + 1);
		task.entries.push_back(e);
	}

	/*
	 * The host sizes the state area from num_ops, as a driver would; a
	 * valid task cannot hold more ops than its descriptor has room for.
	 */
	uint32_t numOps = 1;
	if (descriptor < numEntries && descSize >= 12)
		std::memcpy(&numOps, desc + 8, 4);
	uint32_t cap = uint32_t(descSize / VDLA_TASK_OP_SIZE + 1);
	uint32_t stateOps = numOps < cap ? numOps : cap;
	std::vector<uint64_t> state(dla_task_state_size(stateOps) / 8 + 1);

	auto *dev = static_cast<FuzzDevice *>(std::calloc(1, sizeof(FuzzDevice)));
	std::vector<uint64_t> engineMemory(dla_engine_size() / 8 + 1);
	struct dla_engine *engine = nullptr;
	check(dla_register_driver(engineMemory.data(), dev, &engine) == DLA_SUCCESS,
		"dla_register_driver failed");
	dev->counting = true;

	dla_task_config config = {};
	config.task_data = &task;
	config.num_addresses = uint16_t(numEntries);
	config.descriptor = descriptor;
	config.context = context;
	config.state = state.data();
	config.state_size = state.size() * 8;
	int32_t rc = dla_execute_task(engine, &config);

	struct dla_task_result result = {};
	int32_t resultStatus = dla_get_task_result(engine, &result);
	if (rc == DLA_SUCCESS || rc == DLA_ERR_INVALID_TASK)
		check(resultStatus == DLA_SUCCESS, "dla_get_task_result failed");
	if (verbose())
		std::fprintf(stderr, "fuzz_validate: rc %d op %u field %u (%s) reason %u (%s)\n",
			rc, result.error_op, result.error_field, dla_field_name(result.error_field),
			result.error_reason, dla_reason_name(result.error_reason));
	if (rc == DLA_ERR_INVALID_TASK) {
		check(result.status == DLA_ERR_INVALID_TASK, "status is not INVALID_TASK");
		check(result.error_field < DLA_FIELDS, "error_field out of range");
		check(result.error_reason < DLA_REASONS, "error_reason out of range");
		check(result.error_reason != DLA_REASON_NONE, "error_reason NONE");
		check(result.error_op == DLA_ERROR_IN_HEADER || result.error_op < numOps,
			"error_op is neither the header nor an op");
		check(dla_field_name(result.error_field) && dla_reason_name(result.error_reason),
			"unnamed field or reason");
		check(dev->writes == 0, "a rejected task wrote a register");
	} else if (rc == DLA_SUCCESS) {
		/* Only an empty task ends without programming anything. */
		check(dev->writes > 0 || (numOps == 0 && result.state == DLA_TASK_COMPLETED),
			"an accepted task wrote no register");
		/* Spurious and real-looking interrupts, then abort. */
		uint32_t bits = irqSeed * 0x01010101u;
		uint32_t complete = 0;
		for (int round = 0; round < 4 && !complete; round++) {
			dev->regs[VDLA_REG_INT_STATUS / 4] = bits & VDLA_INT_ALL;
			dla_isr_handler(engine);
			dla_process_events(engine, &complete);
			bits = bits * 1103515245u + 12345u;
		}
		/* A task the interrupts ended (FAILED, say) has nothing to abort. */
		int32_t abortStatus = dla_abort_task(engine);
		if (!complete)
			check(abortStatus == DLA_SUCCESS, "dla_abort_task failed");
		check(dla_get_task_result(engine, &result) == DLA_SUCCESS,
			"dla_get_task_result failed after abort");
	} else {
		check(rc == DLA_ERR_NO_MEMORY || rc == DLA_ERR_BAD_ARGUMENT,
			"dla_execute_task returned an unexpected status");
	}
	dla_clear_task(engine);

	std::free(dev);
	for (FuzzEntry &e : task.entries)
		std::free(e.data);
	return 0;
}

} /* extern "C" */
