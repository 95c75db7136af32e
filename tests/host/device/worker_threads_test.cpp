/* SPDX-License-Identifier: MIT */
/*
 * The engine workers as threads of the host process: one per engine, named
 * after it, with every signal blocked, since signals are the host's (QEMU's
 * main loop handles them) and not the device's.
 */
#include <gtest/gtest.h>

#include <dirent.h>

#include <csignal>
#include <fstream>
#include <map>
#include <string>

#include "device_test_util.h"

namespace vdla_test {
namespace {

/* Each thread of this process: its name and its blocked-signal mask. */
std::map<std::string, uint64_t> threadsBlockedSignals()
{
	std::map<std::string, uint64_t> threads;
	DIR *dir = opendir("/proc/self/task");
	while (struct dirent *entry = dir ? readdir(dir) : nullptr) {
		if (entry->d_name[0] == '.')
			continue;
		std::string task = std::string("/proc/self/task/") + entry->d_name;
		std::string name, line;
		std::getline(std::ifstream(task + "/comm"), name);
		std::ifstream status(task + "/status");
		while (std::getline(status, line))
			if (line.rfind("SigBlk:", 0) == 0)
				threads[name] = std::stoull(line.substr(7), nullptr, 16);
	}
	if (dir)
		closedir(dir);
	return threads;
}

TEST(WorkerThreads, AreNamedAfterTheirEnginesAndBlockEverySignal)
{
	DeviceHarness dev(nullptr, kDeviceTestGuestBytes);
	std::map<std::string, uint64_t> threads = threadsBlockedSignals();
	for (const char *name :
		{ "vdla-bdma", "vdla-conv", "vdla-sdp", "vdla-pdp", "vdla-cdp", "vdla-rubik" }) {
		SCOPED_TRACE(name);
		ASSERT_EQ(threads.count(name), 1u);
		for (int signal : { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD })
			EXPECT_TRUE(threads[name] & (1ull << (signal - 1))) << "signal " << signal;
	}
}

} /* namespace */
} /* namespace vdla_test */
