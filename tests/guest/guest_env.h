/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the in-guest suites: what guest-run tells the guest, raw
 * ioctls with their errno, and loading and unloading the driver.
 */
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace guest {

/* The number of vDLA devices guest-run gave the guest (VDLA_DEVICES). */
int expectedDevices();

/* Every vdla node, in order; fails the calling test if enumeration fails. */
std::vector<std::string> vdlaNodes();

/* Opens @node read-write; returns the fd or -1. */
int openNode(const std::string &node);

/* Runs an ioctl without libdrm's EINTR retry; returns 0 or the errno. */
int ioctlErrno(int fd, unsigned long request, void *arg);

/* Builds an ioctl request number like @request but with size @size. */
unsigned long withSize(unsigned long request, unsigned int size);

/* Loads the vdla module from VDLA_MODULE; returns 0 or the errno. */
int loadDriver();
/* Unloads vdla; with @nonblock fails with EWOULDBLOCK while in use. */
int unloadDriver(bool nonblock = true);
/* Waits until @count vdla nodes are usable, up to @timeout. */
bool waitForNodes(int count, std::chrono::milliseconds timeout);

/* Reads a whole sysfs attribute, trailing newline removed. */
std::string readSysfs(const std::string &path);
/* Writes @value to a sysfs attribute; returns 0 or the errno. */
int writeSysfs(const std::string &path, const std::string &value);

} /* namespace guest */
