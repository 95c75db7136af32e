/* SPDX-License-Identifier: MIT */
#include "guest_env.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include <vdla/device.h>

namespace guest {

int expectedDevices()
{
	const char *value = std::getenv("VDLA_DEVICES");
	return value ? std::atoi(value) : 1;
}

std::vector<std::string> vdlaNodes()
{
	auto nodes = vdla::Device::enumerate();
	EXPECT_TRUE(nodes.ok()) << nodes.error().message();
	return nodes.ok() ? *nodes : std::vector<std::string>{};
}

int openNode(const std::string &node)
{
	return ::open(node.c_str(), O_RDWR | O_CLOEXEC);
}

int ioctlErrno(int fd, unsigned long request, void *arg)
{
	return ::ioctl(fd, request, arg) == 0 ? 0 : errno;
}

unsigned long withSize(unsigned long request, unsigned int size)
{
	return (request & ~(static_cast<unsigned long>(_IOC_SIZEMASK) << _IOC_SIZESHIFT)) |
	       (static_cast<unsigned long>(size) << _IOC_SIZESHIFT);
}

int loadDriver()
{
	const char *path = std::getenv("VDLA_MODULE");
	int fd = ::open(path ? path : "/vdla/vdla.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int ret = ::syscall(SYS_finit_module, fd, "", 0) == 0 ? 0 : errno;
	::close(fd);
	return ret;
}

int unloadDriver(bool nonblock)
{
	return ::syscall(SYS_delete_module, "vdla", nonblock ? O_NONBLOCK : 0) == 0 ? 0 : errno;
}

bool waitForNodes(int count, std::chrono::milliseconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	do {
		auto nodes = vdla::Device::enumerate();
		if (nodes.ok() && static_cast<int>(nodes->size()) == count)
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	} while (std::chrono::steady_clock::now() < deadline);
	return false;
}

std::string readSysfs(const std::string &path)
{
	std::ifstream file(path);
	std::stringstream text;
	text << file.rdbuf();
	std::string value = text.str();
	while (!value.empty() && value.back() == '\n')
		value.pop_back();
	return value;
}

int writeSysfs(const std::string &path, const std::string &value)
{
	int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int ret = ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size()) ? 0 : errno;
	::close(fd);
	return ret;
}

} /* namespace guest */
