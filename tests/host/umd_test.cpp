/* SPDX-License-Identifier: MIT */
/*
 * libvdla code that needs no device: versions, capability names, errors and
 * enumeration over directories without vdla nodes.
 */
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>

#include <drm/vdla_accel.h>
#include <vdla/device.h>

#include "vdla_core.h"
#include "vdla_regs.h"

namespace {

/* A temporary directory removed with its contents at the end of a test. */
class TempDir
{
public:
	TempDir()
	{
		char tmpl[] = "/tmp/vdla-umd-test.XXXXXX";
		path_ = ::mkdtemp(tmpl);
	}
	~TempDir() { std::system(("rm -rf " + path_).c_str()); }
	const std::string &path() const { return path_; }

private:
	std::string path_;
};

TEST(Version, DecodesRegisterLayout)
{
	vdla::Version v = vdla::Version::fromRegister(0x00020a07);
	EXPECT_EQ(v.major, 2u);
	EXPECT_EQ(v.minor, 10u);
	EXPECT_EQ(v.patch, 7u);
	EXPECT_EQ(v.toString(), "2.10.7");
}

TEST(Version, AtLeastComparesMajorThenMinor)
{
	const vdla::Version v{ 1, 7, 0 };
	EXPECT_TRUE(v.atLeast(1, 7));
	EXPECT_TRUE(v.atLeast(1, 3));
	EXPECT_TRUE(v.atLeast(0, 9));
	EXPECT_FALSE(v.atLeast(1, 8));
	EXPECT_FALSE(v.atLeast(2, 0));
	EXPECT_TRUE((vdla::Version{ 2, 0, 0 }).atLeast(1, 7));
}

TEST(CapabilityNames, NamesKnownBitsInOrder)
{
	auto names = vdla::capabilityNames(DRM_VDLA_CAP_TEST_IRQ | DRM_VDLA_CAP_TIMER);
	ASSERT_EQ(names.size(), 2u);
	EXPECT_EQ(names[0], "test-irq");
	EXPECT_EQ(names[1], "timer");
}

TEST(CapabilityNames, NamesUnknownBitsByNumber)
{
	auto names = vdla::capabilityNames(DRM_VDLA_CAP_SOFT_RESET | (1u << 30));
	ASSERT_EQ(names.size(), 2u);
	EXPECT_EQ(names[0], "soft-reset");
	EXPECT_EQ(names[1], "bit30");
}

TEST(CapabilityNames, EmptyForNoBits)
{
	EXPECT_TRUE(vdla::capabilityNames(0).empty());
}

TEST(ComputeNames, AgreeWithTheDeviceOnEveryRegisterValue)
{
	/* The UAPI numbers are the COMPUTE register's; the names the device's own. */
	EXPECT_EQ(DRM_VDLA_COMPUTE_PATH_SCALAR, VDLA_COMPUTE_PATH_SCALAR);
	EXPECT_EQ(DRM_VDLA_COMPUTE_PATH_AVX2, VDLA_COMPUTE_PATH_AVX2);
	EXPECT_EQ(DRM_VDLA_COMPUTE_PATH_ONEDNN, VDLA_COMPUTE_PATH_ONEDNN);
	for (uint32_t path = 1; path < VDLA_COMPUTE_PATHS; path++)
		EXPECT_EQ(vdla::computePathName(path), vdla_compute_path_name(path)) << path;
	for (uint32_t isa = 0; isa < VDLA_COMPUTE_ISAS; isa++)
		EXPECT_EQ(vdla::computeIsaName(isa), vdla_compute_isa_name(isa)) << isa;
	EXPECT_EQ(DRM_VDLA_COMPUTE_ISA_AMX, VDLA_COMPUTE_ISA_AMX);
	EXPECT_EQ(vdla::computePathName(0), "unknown");
	EXPECT_EQ(vdla::computePathName(9), "path9");
	EXPECT_EQ(vdla::computeIsaName(VDLA_COMPUTE_ISAS), "isa9");
}

TEST(Error, MessageJoinsReasonAndErrnoText)
{
	vdla::Error error(ENOENT, "cannot open /dev/accel/accel9");
	EXPECT_EQ(error.code(), ENOENT);
	EXPECT_EQ(error.message(), "cannot open /dev/accel/accel9: No such file or directory");
}

TEST(Result, HoldsValueOrError)
{
	vdla::Result<int> good(42);
	vdla::Result<int> bad(vdla::Error(EINVAL, "bad"));
	ASSERT_TRUE(good.ok());
	EXPECT_EQ(*good, 42);
	ASSERT_FALSE(bad.ok());
	EXPECT_EQ(bad.error().code(), EINVAL);

	vdla::Result<void> done;
	vdla::Result<void> failed(vdla::Error(EIO, "io"));
	EXPECT_TRUE(done.ok());
	EXPECT_FALSE(failed.ok());
	EXPECT_EQ(failed.error().code(), EIO);
}

TEST(Enumerate, MissingAccelDirectoryMeansNoDevices)
{
	auto nodes = vdla::Device::enumerate("/nonexistent/accel");
	ASSERT_TRUE(nodes.ok()) << nodes.error().message();
	EXPECT_TRUE(nodes->empty());
}

TEST(Enumerate, SkipsNodesThatAreNotVdla)
{
	TempDir dir;
	/* Regular files named like accel nodes are not DRM devices. */
	for (const char *name : { "accel0", "accel1", "accelX", "other" })
		std::ofstream(dir.path() + "/" + name) << "not a device";

	auto nodes = vdla::Device::enumerate(dir.path());
	ASSERT_TRUE(nodes.ok()) << nodes.error().message();
	EXPECT_TRUE(nodes->empty());
}

TEST(Enumerate, UnreadableDirectoryIsAnError)
{
	TempDir dir;
	std::string file = dir.path() + "/file";
	std::ofstream(file) << "x";

	auto nodes = vdla::Device::enumerate(file);
	ASSERT_FALSE(nodes.ok());
	EXPECT_EQ(nodes.error().code(), ENOTDIR);
}

TEST(DeviceOpen, MissingNodeReportsPathAndErrno)
{
	auto device = vdla::Device::open("/nonexistent/accel0");
	ASSERT_FALSE(device.ok());
	EXPECT_EQ(device.error().code(), ENOENT);
	EXPECT_NE(device.error().reason().find("/nonexistent/accel0"), std::string::npos);
}

TEST(DeviceOpen, NonDrmFileIsNotAVdlaDevice)
{
	auto device = vdla::Device::open("/dev/null");
	ASSERT_FALSE(device.ok());
	EXPECT_EQ(device.error().code(), ENODEV);
}

TEST(DriverLoaded, JudgedFromSysModule)
{
	TempDir sys;
	EXPECT_FALSE(vdla::driverLoaded(sys.path()));
	::mkdir((sys.path() + "/module").c_str(), 0755);
	::mkdir((sys.path() + "/module/vdla").c_str(), 0755);
	EXPECT_TRUE(vdla::driverLoaded(sys.path()));
}

} /* namespace */
