/* SPDX-License-Identifier: MIT */
/*
 * vdla::IpcEndpoint between processes: messages whole and in order with
 * their descriptors, the sender as the kernel saw it (not as it claims),
 * timeouts, a peer that goes, and input that is not ours refused without
 * leaking a descriptor. Lists sent with sendAttrList() arrive checked.
 */
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <vdla/ipc.h>
#include <vdla/shared_buffer.h>
#include <vdla/sync.h>

namespace {

using namespace vdla;
using namespace std::chrono_literals;

int openFdCount()
{
	int count = 0;
	DIR *dir = opendir("/proc/self/fd");
	while (dirent *e = readdir(dir))
		count += e->d_name[0] != '.';
	closedir(dir);
	return count;
}

/* Runs @child in a forked process; its exit status. */
template <typename F> int inChild(F child)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(child());
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(Ipc, MessagesArriveWholeInOrderWithTheirDescriptors)
{
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair) << pair.error().message();
	auto &[a, b] = *pair;

	int pipeFds[2];
	ASSERT_EQ(pipe(pipeFds), 0);
	ASSERT_TRUE(a->send(7, { 1, 2, 3 }, { pipeFds[1] }));
	ASSERT_TRUE(a->send(8, {}));
	std::vector<uint8_t> big(IpcEndpoint::kMaxPayload, 0x5a);
	ASSERT_TRUE(a->send(9, big));
	close(pipeFds[1]);

	auto first = b->receive(1s);
	ASSERT_TRUE(first) << first.error().message();
	EXPECT_EQ(first->kind, 7u);
	EXPECT_EQ(first->payload, (std::vector<uint8_t>{ 1, 2, 3 }));
	ASSERT_EQ(first->fds.size(), 1u);
	/* The descriptor is the pipe's write end: what goes in comes out. */
	ASSERT_EQ(write(first->fds[0].get(), "x", 1), 1);
	char c = 0;
	ASSERT_EQ(read(pipeFds[0], &c, 1), 1);
	EXPECT_EQ(c, 'x');
	EXPECT_TRUE(fcntl(first->fds[0].get(), F_GETFD) & FD_CLOEXEC);
	close(pipeFds[0]);

	auto second = b->receive(8, 1s);
	ASSERT_TRUE(second);
	EXPECT_TRUE(second->payload.empty());
	auto third = b->receive(1s);
	ASSERT_TRUE(third);
	EXPECT_EQ(third->payload, big);

	EXPECT_EQ(a->send(1, std::vector<uint8_t>(IpcEndpoint::kMaxPayload + 1)).error().code(),
		EMSGSIZE);
	std::vector<int> many(IpcEndpoint::kMaxFds + 1, 0);
	EXPECT_EQ(a->send(1, {}, many).error().code(), EMSGSIZE);
}

TEST(Ipc, TheSenderIsWhoTheKernelSaw)
{
	auto listener = IpcListener::listen("/tmp/vdla-ipc-test-" + std::to_string(getpid()));
	ASSERT_TRUE(listener) << listener.error().message();
	EXPECT_EQ(IpcListener::listen(listener->get()->path()).error().code(), EADDRINUSE);

	pid_t pid = fork();
	if (pid == 0) {
		auto ep = IpcEndpoint::connect((*listener)->path());
		if (!ep || (*ep)->peer().pid != getppid())
			_exit(1);
		if (!(*ep)->send(1, { 42 }))
			_exit(2);
		/* Wait for the parent to read before the socket goes. */
		auto bye = (*ep)->receive(10s);
		_exit(bye ? 0 : 3);
	}
	auto ep = (*listener)->accept(10s);
	ASSERT_TRUE(ep) << ep.error().message();
	EXPECT_EQ((*ep)->peer().pid, pid);
	EXPECT_EQ((*ep)->peer().uid, getuid());
	auto message = (*ep)->receive(10s);
	ASSERT_TRUE(message) << message.error().message();
	EXPECT_EQ(message->sender.pid, pid);
	EXPECT_EQ(message->sender.uid, getuid());
	ASSERT_TRUE((*ep)->send(2, {}));
	int status = 0;
	waitpid(pid, &status, 0);
	EXPECT_EQ(WEXITSTATUS(status), 0);

	/* Through a pair: each message names the process that sent it, after a fork too. */
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	pid_t sender = fork();
	if (sender == 0) {
		pair->first.reset();
		_exit(pair->second->send(3, {}) ? 0 : 1);
	}
	pair->second.reset();
	auto fromChild = pair->first->receive(10s);
	ASSERT_TRUE(fromChild);
	EXPECT_EQ(fromChild->sender.pid, sender);
	EXPECT_EQ(pair->first->peer().pid, getpid()) << "a pair's peer is who made it";
	waitpid(sender, &status, 0);
}

TEST(Ipc, TimeoutsAndAPeerThatGoes)
{
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	auto start = std::chrono::steady_clock::now();
	auto none = pair->first->receive(50ms);
	ASSERT_FALSE(none);
	EXPECT_EQ(none.error().code(), ETIMEDOUT);
	EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);
	EXPECT_EQ(pair->first->receive(0ms).error().code(), ETIMEDOUT);

	/* A message of another kind than expected is EPROTO. */
	ASSERT_TRUE(pair->second->send(5, {}));
	EXPECT_EQ(pair->first->receive(6, 1s).error().code(), EPROTO);

	/* What was sent before the peer went still comes, then EPIPE at once. */
	ASSERT_TRUE(pair->second->send(4, { 9 }));
	pair->second.reset();
	auto last = pair->first->receive(1s);
	ASSERT_TRUE(last);
	EXPECT_EQ(last->payload, std::vector<uint8_t>{ 9 });
	EXPECT_EQ(pair->first->receive(-1ms).error().code(), EPIPE);
	EXPECT_EQ(pair->first->send(1, {}).error().code(), EPIPE);

	EXPECT_EQ(IpcEndpoint::connect("/nonexistent/vdla").error().code(), ENOENT);
	EXPECT_EQ(IpcListener::listen(std::string(200, 'x')).error().code(), ENAMETOOLONG);
}

/*
 * A peer that does not read: sends with a timeout give up after it with
 * ETIMEDOUT and send nothing; once it reads, there is room again. A peer
 * killed with our messages unread is EPIPE, not a malformed message.
 */
TEST(Ipc, SendsWaitForRoomNoLongerThanTheirTimeout)
{
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	const std::vector<uint8_t> chunk(IpcEndpoint::kMaxPayload, 7);
	size_t sent = 0;
	for (;; sent++) {
		auto r = pair->first->send(1, chunk, {}, 0ms);
		if (!r) {
			EXPECT_EQ(r.error().code(), ETIMEDOUT);
			break;
		}
		ASSERT_LT(sent, 10000u) << "the socket never filled";
	}
	ASSERT_GT(sent, 0u);
	auto start = std::chrono::steady_clock::now();
	auto late = pair->first->send(2, chunk, {}, 100ms);
	ASSERT_FALSE(late);
	EXPECT_EQ(late.error().code(), ETIMEDOUT);
	EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
	/* Nothing of the timed-out message went: exactly the chunks sent, then room. */
	for (size_t i = 0; i < sent; i++) {
		auto m = pair->second->receive(1s);
		ASSERT_TRUE(m);
		EXPECT_EQ(m->kind, 1u);
	}
	EXPECT_EQ(pair->second->receive(0ms).error().code(), ETIMEDOUT);
	EXPECT_TRUE(pair->first->send(3, chunk, {}, 100ms));

	/* The reader goes with that message unread: the other side sees EPIPE. */
	pair->second.reset();
	EXPECT_EQ(pair->first->receive(1s).error().code(), EPIPE);
}

TEST(Ipc, ForeignInputIsRefusedAndItsDescriptorsClosed)
{
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	const int hostile = dup(pair->second->fd());
	pair->second.reset();
	const int before = openFdCount();

	/* Too short, not our magic, and a lie with a descriptor attached. */
	ASSERT_EQ(send(hostile, "ab", 2, 0), 2);
	ASSERT_EQ(send(hostile, "ABCDEFGHIJ", 10, 0), 10);
	{
		int passed = open("/dev/null", O_RDONLY);
		char junk[4] = { 1, 2, 3, 4 };
		iovec iov = { junk, sizeof(junk) };
		alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
		msghdr msg = {};
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		std::memcpy(CMSG_DATA(c), &passed, sizeof(int));
		ASSERT_EQ(sendmsg(hostile, &msg, 0), 4);
		close(passed);
	}
	/* Longer than any message of ours: by a byte, and by more. */
	for (size_t extra : { 1, 100 }) {
		std::vector<uint8_t> huge(8 + IpcEndpoint::kMaxPayload + extra, 0);
		const uint32_t magic = 0x50494456;
		std::memcpy(huge.data(), &magic, 4);
		ASSERT_EQ(send(hostile, huge.data(), huge.size(), 0), ssize_t(huge.size()));
	}

	for (int i = 0; i < 5; i++) {
		auto m = pair->first->receive(1s);
		ASSERT_FALSE(m) << "message " << i << " accepted";
		EXPECT_EQ(m.error().code(), EBADMSG) << i << ": " << m.error().message();
	}
	EXPECT_EQ(openFdCount(), before) << "a refused message's descriptor leaked";
	close(hostile);
}

TEST(Ipc, AFenceThatIsNotASyncFileIsRefused)
{
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	int fds[2];
	ASSERT_EQ(pipe(fds), 0);
	std::vector<uint8_t> point(8, 0);
	point[0] = 1;
	ASSERT_TRUE(pair->second->send(kIpcFence, point, { fds[0] }));
	close(fds[0]);
	close(fds[1]);
	auto fence = SyncFence::importFrom(*pair->first, 1s);
	ASSERT_FALSE(fence);
	EXPECT_EQ(fence.error().code(), EBADMSG);
	EXPECT_NE(fence.error().reason().find("not a sync file"), std::string::npos);
}

TEST(Ipc, AttributeListsCrossCheckedAndFromAnotherProcess)
{
	auto pair = IpcEndpoint::pair();
	ASSERT_TRUE(pair);
	int status = inChild([&] {
		AttrList camera("camera");
		if (!camera.setTypes({ BufferType::Tensor })
			|| !camera.setTensorDims({ 1, 3, 224, 224 })
			|| !camera.setTensorDataType(TensorDataType::Uint8))
			return 1;
		return sendAttrList(*pair->second, camera) ? 0 : 2;
	});
	ASSERT_EQ(status, 0);
	auto camera = receiveAttrList(*pair->first, 1s);
	ASSERT_TRUE(camera) << camera.error().message();
	EXPECT_EQ(camera->owner(), "camera");
	AttrList classifier("classifier");
	ASSERT_TRUE(classifier.setTypes({ BufferType::Tensor }));
	ASSERT_TRUE(classifier.setTensorDims({ 1, 3, 256, 256 }));
	auto r = reconcile({ &*camera, &classifier });
	ASSERT_TRUE(r);
	ASSERT_EQ(r->conflicts.size(), 1u);
	EXPECT_EQ(r->conflicts[0].message(),
		"Tensor.Dims must be equal: camera [1,3,224,224], classifier [1,3,256,256]");

	/* A message that is not a list, under the list's kind. */
	ASSERT_TRUE(pair->second->send(kIpcAttrList, { 1, 2, 3 }));
	EXPECT_EQ(receiveAttrList(*pair->first, 1s).error().code(), EBADMSG);
}

} /* namespace */
