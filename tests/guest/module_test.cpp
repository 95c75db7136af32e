/* SPDX-License-Identifier: MIT */
/*
 * The driver as a module: unloading is refused while a node is open,
 * vdla-info explains a missing driver, and unload/reload cycles leave a
 * working driver every time. Runs as its own binary, after the others,
 * because it takes the driver away.
 */
#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

#include <vdla/device.h>

#include "guest_env.h"

extern char **environ;

namespace {

using namespace std::chrono_literals;

/* Runs vdla-info, returning its exit status and what it printed to stderr. */
std::pair<int, std::string> runInfoTool()
{
	int pipefd[2];
	if (::pipe(pipefd))
		return { -1, "pipe failed" };
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDERR_FILENO);
	posix_spawn_file_actions_addclose(&actions, pipefd[0]);

	pid_t pid;
	char name[] = "vdla-info";
	char *argv[] = { name, nullptr };
	int ret = ::posix_spawnp(&pid, name, &actions, nullptr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	::close(pipefd[1]);
	if (ret) {
		::close(pipefd[0]);
		return { -1, "cannot run vdla-info" };
	}

	std::string output;
	char buffer[256];
	ssize_t n;
	while ((n = ::read(pipefd[0], buffer, sizeof(buffer))) > 0)
		output.append(buffer, n);
	::close(pipefd[0]);
	int status = 0;
	::waitpid(pid, &status, 0);
	return { WIFEXITED(status) ? WEXITSTATUS(status) : -1, output };
}

TEST(Module, UnloadIsRefusedWhileANodeIsOpen)
{
	auto nodes = guest::vdlaNodes();
	ASSERT_FALSE(nodes.empty());
	int fd = guest::openNode(nodes.front());
	ASSERT_GE(fd, 0);
	EXPECT_EQ(guest::unloadDriver(), EWOULDBLOCK);
	::close(fd);
	EXPECT_TRUE(guest::waitForNodes(guest::expectedDevices(), 1s));
}

TEST(Module, InfoToolExplainsAMissingDriver)
{
	ASSERT_EQ(guest::unloadDriver(), 0);
	auto [status, output] = runInfoTool();
	EXPECT_EQ(status, 1);
	EXPECT_NE(output.find("driver is not loaded"), std::string::npos) << output;

	ASSERT_EQ(guest::loadDriver(), 0);
	ASSERT_TRUE(guest::waitForNodes(guest::expectedDevices(), 5s));
	EXPECT_EQ(runInfoTool().first, 0);
}

TEST(Module, ReloadTenTimesLeavesAWorkingDriver)
{
	for (int cycle = 0; cycle < 10; cycle++) {
		ASSERT_EQ(guest::unloadDriver(), 0) << "cycle " << cycle;
		EXPECT_TRUE(guest::vdlaNodes().empty());
		ASSERT_EQ(guest::loadDriver(), 0) << "cycle " << cycle;
		ASSERT_TRUE(guest::waitForNodes(guest::expectedDevices(), 5s)) << "cycle " << cycle;

		for (const auto &node : guest::vdlaNodes()) {
			auto device = vdla::Device::open(node);
			ASSERT_TRUE(device.ok()) << device.error().message();
			auto latency = (*device)->testInterrupt(2000ms);
			EXPECT_TRUE(latency.ok()) << node << ": " << latency.error().message();
		}
	}
}

TEST(Module, LoadingTwiceIsRefused)
{
	EXPECT_EQ(guest::loadDriver(), EEXIST);
}

} /* namespace */
