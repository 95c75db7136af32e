/* SPDX-License-Identifier: MIT */
/*
 * The example of docs/sharing.md: two processes share a tensor without a
 * copy. The consumer says what it needs; the producer reconciles that with
 * its own needs, allocates the tensor, writes it on the DLA and sends it
 * read-only with the fence of the write; the consumer waits for the fence
 * and reads the tensor on the CPU.
 */
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/ipc.h>
#include <vdla/shared_buffer.h>
#include <vdla/sync.h>
#include <vdla/task_builder.h>

using namespace std::chrono_literals;
using namespace vdla;

static int fail(const char *who, const char *what, const Error &error)
{
	std::fprintf(stderr, "%s: %s: %s\n", who, what, error.message().c_str());
	return 1;
}

/* A 4 KiB INT8 tensor [1,4,32,32], as one party needs it. */
static AttrList tensorNeeds(const char *owner, Accessor who, Permission permission)
{
	AttrList list(owner);
	list.setTypes({ BufferType::Tensor });
	list.setTensorDataType(TensorDataType::Int8);
	list.setTensorDims({ 1, 4, 32, 32 });
	list.setAccessors({ who });
	list.setRequiredPermission(permission);
	return list;
}

static int consumer(const std::string &socket, const std::string &node)
{
	auto device = Device::open(node);
	if (!device)
		return fail("consumer", "open", device.error());
	auto ep = IpcEndpoint::connect(socket);
	if (!ep)
		return fail("consumer", "connect", ep.error());

	/* What this process needs: to read the tensor on the CPU, and to wait there. */
	AttrList needs = tensorNeeds("viewer", Accessor::cpu(), Permission::ReadOnly);
	SyncAttrList waiter("viewer");
	waiter.setRequiredPermission(SyncPermission::WaitOnly);
	waiter.setAccessor(Accessor::cpu());
	waiter.setNeedCpuWait(true);
	if (auto sent = sendAttrList(**ep, needs); !sent)
		return fail("consumer", "send the list", sent.error());
	if (auto sent = sendSyncAttrList(**ep, waiter); !sent)
		return fail("consumer", "send the sync list", sent.error());

	/* The tensor as we need it (read-only here, whatever this process tries). */
	auto tensor = SharedBuffer::importFrom(**ep, **device, Permission::ReadOnly, 10s, &needs);
	if (!tensor)
		return fail("consumer", "import the tensor", tensor.error());
	auto written = SyncFence::importFrom(**ep, 10s);
	if (!written)
		return fail("consumer", "import the fence", written.error());
	auto status = written->wait(10s);
	if (!status)
		return fail("consumer", "wait", status.error());
	if (status->error) {
		std::fprintf(stderr, "consumer: the write failed: %s\n", std::strerror(status->error));
		return 1;
	}

	(*tensor)->beginCpuAccess(Buffer::CpuAccess::Read);
	auto data = (*tensor)->map();
	if (!data)
		return fail("consumer", "map", data.error());
	uint64_t bytes = *(*tensor)->attributes().size(), wrong = 0;
	for (uint64_t i = 0; i < bytes; i++)
		wrong += (*data)[i] != uint8_t(i % 251);
	(*tensor)->endCpuAccess(Buffer::CpuAccess::Read);
	std::printf("consumer: %llu bytes from the DLA of process %d, %llu wrong\n",
		(unsigned long long)bytes, (*ep)->peer().pid, (unsigned long long)wrong);
	return wrong ? 1 : 0;
}

static int producer(IpcListener &listener, Device &device)
{
	auto ep = listener.accept(10s);
	if (!ep)
		return fail("producer", "accept", ep.error());

	/* The consumer's needs and ours, reconciled into one list. */
	auto theirs = receiveAttrList(**ep, 10s);
	if (!theirs)
		return fail("producer", "receive the list", theirs.error());
	AttrList mine = tensorNeeds("producer", Accessor::dla(device.accelMinor()),
		Permission::ReadWrite);
	auto reconciled = reconcile({ &mine, &*theirs });
	if (!reconciled)
		return fail("producer", "reconcile", reconciled.error());
	for (const AttrConflict &conflict : reconciled->conflicts)
		std::fprintf(stderr, "producer: %s\n", conflict.message().c_str());
	if (!reconciled->list)
		return 1;
	auto tensor = SharedBuffer::allocate(device, *reconciled->list);
	if (!tensor)
		return fail("producer", "allocate", tensor.error());

	/* One signaler (our DLA), one waiter (their CPU). */
	auto waiter = receiveSyncAttrList(**ep, 10s);
	if (!waiter)
		return fail("producer", "receive the sync list", waiter.error());
	SyncAttrList signaler("producer");
	signaler.setRequiredPermission(SyncPermission::SignalOnly);
	signaler.setAccessor(Accessor::dla(device.accelMinor()));
	auto syncList = reconcileSync({ &signaler, &*waiter });
	if (!syncList || !syncList->list)
		return 1;
	auto sync = SyncObject::allocate(device, *syncList->list);
	if (!sync)
		return fail("producer", "sync object", sync.error());

	/* The DLA writes the tensor: a copy of a pattern. */
	const uint32_t bytes = uint32_t(*reconciled->list->size());
	auto pattern = Buffer::create(device, bytes);
	auto context = Context::create(device);
	if (!pattern || !(*pattern)->map() || !context)
		return 1;
	for (uint32_t i = 0; i < bytes; i++)
		(*pattern)->data()[i] = uint8_t(i % 251);
	TaskBuilder builder;
	uint16_t from = builder.addBuffer(**pattern);
	uint16_t to = builder.addBuffer((*tensor)->buffer(), BufferUse::Write);
	builder.copy({ from, 0 }, { to, 0 }, bytes);
	auto task = builder.build(device);
	if (!task)
		return fail("producer", "build", task.error());
	auto point = (*sync)->submit(**context, *task);
	if (!point)
		return fail("producer", "submit", point.error());

	/* Sent at once: the consumer's wait orders its reads after the write. */
	if (auto sent = (*tensor)->exportTo(**ep, Permission::ReadOnly); !sent)
		return fail("producer", "export the tensor", sent.error());
	if (auto sent = (*sync)->exportFence(**ep, *point); !sent)
		return fail("producer", "export the fence", sent.error());
	/* The consumer closes its end when it is done: EPIPE then. */
	auto end = (*ep)->receive(30s);
	return !end && end.error().code() == EPIPE ? 0 : 1;
}

int main()
{
	auto nodes = Device::enumerate();
	if (!nodes || nodes->empty()) {
		std::fprintf(stderr, "no vdla device\n");
		return 1;
	}
	auto device = Device::open(nodes->front());
	if (!device)
		return fail("producer", "open", device.error());
	const std::string socket = "/tmp/vdla-share-" + std::to_string(getpid());
	auto listener = IpcListener::listen(socket);
	if (!listener)
		return fail("producer", "listen", listener.error());

	pid_t pid = fork();
	if (pid == 0)
		_exit(consumer(socket, nodes->front()));
	int status = producer(**listener, **device);
	int child = 0;
	waitpid(pid, &child, 0);
	return status || !WIFEXITED(child) || WEXITSTATUS(child) ? 1 : 0;
}
