/* SPDX-License-Identifier: MIT */
/*
 * vdla-pipelined and vdla-pipelinectl, the real binaries, run as the
 * guest's init runs them (docs/ownership.md): the design's scenario end to
 * end (the daemon owns the pipeline; application 1 takes the output;
 * application 2 duplicates a channel; 1 exits and nothing changes for 2
 * and the daemon; 2 is killed and the exit action runs), a rebuild over
 * the command socket, a bad configuration refused with its line, and the
 * daemon killed: its applications are told and fail cleanly, the command
 * line says the daemon is gone, and a restarted daemon builds it again.
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <vector>

#include "lease_env.h"
#include "pipeline_env.h"
#include "submit_test.h"

namespace guest {
namespace {

constexpr const char *kSocket = "/tmp/pipelined-test.sock";
constexpr const char *kName = "pipelined-test";

/* A child running @argv with stdout and stderr into a pipe we read. */
struct Process {
	pid_t pid = -1;
	int out = -1;
	std::string output;

	~Process()
	{
		if (pid > 0) {
			::kill(pid, SIGKILL);
			::waitpid(pid, nullptr, 0);
		}
		if (out >= 0)
			::close(out);
	}

	/* Reads what is there within @timeoutMs; true once @text is in the output. */
	bool waitFor(const std::string &text, int timeoutMs)
	{
		int64_t end = monotonicNs() + int64_t(timeoutMs) * 1000000;
		while (output.find(text) == std::string::npos) {
			int left = int((end - monotonicNs()) / 1000000);
			pollfd p = { out, POLLIN, 0 };
			if (left <= 0 || ::poll(&p, 1, left) <= 0)
				return false;
			char buf[512];
			ssize_t n = ::read(out, buf, sizeof(buf));
			if (n <= 0)
				return output.find(text) != std::string::npos;
			output.append(buf, size_t(n));
		}
		return true;
	}

	/* Waits for it to end (reading all it wrote); its exit status, 128 + signal. */
	int finish(int timeoutMs = 30000)
	{
		waitFor("\x01never", timeoutMs);
		int status = waitChild(pid, 1000);
		pid = -1;
		return status;
	}
};

std::unique_ptr<Process> start(const std::vector<std::string> &argv)
{
	int fds[2];
	if (::pipe2(fds, O_CLOEXEC))
		return nullptr;
	auto p = std::make_unique<Process>();
	std::fflush(stdout);
	p->pid = ::fork();
	if (p->pid == 0) {
		::dup2(fds[1], 1);
		::dup2(fds[1], 2);
		std::vector<char *> args;
		for (const std::string &a : argv)
			args.push_back(const_cast<char *>(a.c_str()));
		args.push_back(nullptr);
		::execv(args[0], args.data());
		::_exit(127);
	}
	::close(fds[1]);
	p->out = fds[0];
	return p;
}

std::string binary(const std::string &name)
{
	return "/vdla/bin/" + name;
}

/* vdla-pipelinectl @args against the test's daemon: its exit status and output. */
std::pair<int, std::string> ctl(std::vector<std::string> args)
{
	args.insert(args.begin(), { binary("vdla-pipelinectl"), "--socket", kSocket });
	auto p = start(args);
	int status = p->finish();
	return { status, p->output };
}

class PipelinedTest : public SubmitTest
{
protected:
	void SetUp() override
	{
		SubmitTest::SetUp();
		if (HasFatalFailure())
			return;
		/* The daemon leases the partition there is, and reserves the SDP. */
		partitions_ = std::make_unique<SramPartitions>(node_.index(), "camera:65536");
		ASSERT_EQ(partitions_->error(), 0);
		writeConfig("");
	}

	void TearDown() override
	{
		daemon_.reset();
		partitions_.reset();
	}

	void writeConfig(const std::string &extra)
	{
		std::ofstream out(config_);
		out << "pipeline = " << kName << "\n"
		    << "params = 320 240 15\n"
		    << "socket = " << kSocket << "\n"
		    << "period_ms = 20\n"
		    << "output_buffers = 2\n"
		    << "sram_partition = camera:65536\n"
		    << "engine_reservation = sdp\n"
		    << "exit = stop reset notify\n"
		    << extra;
	}

	void startDaemon()
	{
		daemon_ = start({ binary("vdla-pipelined"), "--config", config_ });
		ASSERT_TRUE(daemon_);
		ASSERT_TRUE(daemon_->waitFor("ready", 20000)) << daemon_->output;
	}

	/* The daemon's status: "references N" and the like are found in it. */
	std::string status()
	{
		auto [code, out] = ctl({ "status" });
		EXPECT_EQ(code, 0) << out;
		return out;
	}

	std::string config_ = "/tmp/pipelined-test.conf";
	std::unique_ptr<SramPartitions> partitions_;
	std::unique_ptr<Process> daemon_;
};

TEST_F(PipelinedTest, TheDesignsScenarioEndToEnd)
{
	ASSERT_NO_FATAL_FAILURE(startDaemon());
	std::string s = status();
	EXPECT_NE(s.find("pipeline pipelined-test owner pid " + std::to_string(daemon_->pid) +
			 " (vdla-pipelined) references 0 exit_runs 0"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("channel inference id 2 started scale=3 shift=1"), std::string::npos) << s;
	std::string leases;
	ASSERT_EQ(readFile(debugfsPath(node_.index(), "leases"), &leases), 0);
	EXPECT_NE(leases.find("holder lease"), std::string::npos) << "the daemon holds no lease\n"
								  << leases;

	/* Application 1 takes the output; application 2 duplicates the inference channel. */
	auto app1 = start({ binary("vdla-pipelinectl"), "--socket", kSocket, "watch", "8" });
	ASSERT_TRUE(app1->waitFor("results match the CPU", 20000)) << app1->output;
	auto app2 = start({ binary("vdla-pipelinectl"), "--socket", kSocket, "hold", "inference",
			    "scale=5" });
	ASSERT_TRUE(app2->waitFor("holds a duplicate", 20000)) << app2->output;
	s = status();
	EXPECT_NE(s.find("scale=5"), std::string::npos) << s;
	auto third = ctl({ "hold", "inference" });
	EXPECT_EQ(third.first, 1);
	EXPECT_NE(third.second.find("was duplicated already, into pid " + std::to_string(app2->pid)),
		  std::string::npos)
		<< "a second duplicate, or a reason that does not name the holder: " << third.second;

	/* 1 exits: nothing changes for 2 and the daemon. */
	EXPECT_EQ(app1->finish(), 0) << app1->output;
	EXPECT_NE(app1->output.find("(scale 5, shift 1)"), std::string::npos)
		<< "application 1 never saw application 2's setting: " << app1->output;
	s = status();
	EXPECT_NE(s.find("references 1 exit_runs 0"), std::string::npos) << s;
	EXPECT_NE(s.find("scale=5"), std::string::npos) << s;

	/* 2 is killed: the driver runs the exit action, and the daemon the rest. */
	pid_t app2Pid = app2->pid;
	::kill(app2Pid, SIGKILL);
	EXPECT_EQ(app2->finish(), 128 + SIGKILL);
	EXPECT_TRUE(daemon_->waitFor("the last application (pid " + std::to_string(app2Pid) +
					     ") left: the driver stopped the channels and reset "
					     "their attributes; starting the channels again",
				     10000))
		<< daemon_->output;
	s = status();
	EXPECT_NE(s.find("references 0 exit_runs 1"), std::string::npos) << s;
	EXPECT_NE(s.find("channel inference id 2 started scale=3 shift=1"), std::string::npos) << s;
	auto again = ctl({ "watch", "2" });
	EXPECT_EQ(again.first, 0) << "the pipeline does not run after the exit action: "
				   << again.second;
	EXPECT_NE(again.second.find("(scale 3, shift 1)"), std::string::npos) << again.second;
}

TEST_F(PipelinedTest, ARebuildOverTheSocketRecreatesAChannel)
{
	ASSERT_NO_FATAL_FAILURE(startDaemon());
	auto [code, out] = ctl({ "rebuild", "inference", "scale=7" });
	EXPECT_EQ(code, 0) << out;
	EXPECT_NE(out.find("channel inference id 4 started scale=7 shift=1"), std::string::npos)
		<< "a new channel, with the new attribute: " << out;
	auto watched = ctl({ "watch", "2" });
	EXPECT_EQ(watched.first, 0) << watched.second;
	EXPECT_NE(watched.second.find("(scale 7, shift 1)"), std::string::npos) << watched.second;

	auto bad = ctl({ "rebuild", "inference", "colour=3" });
	EXPECT_EQ(bad.first, 1);
	EXPECT_NE(bad.second.find("'colour=3' is not attribute=number of inference: Invalid argument"),
		  std::string::npos)
		<< bad.second;
	auto unknown = ctl({ "rebuild", "nonesuch" });
	EXPECT_EQ(unknown.first, 1);
	EXPECT_NE(unknown.second.find("no channel nonesuch"), std::string::npos) << unknown.second;
	auto stopped = ctl({ "stop", "producer" });
	EXPECT_EQ(stopped.first, 0) << stopped.second;
	EXPECT_NE(status().find("channel producer id 1 stopped"), std::string::npos);
}

TEST_F(PipelinedTest, ABadConfigurationIsRefusedWithItsLine)
{
	::unlink(kSocket); /* an earlier test's daemon, killed, left it */
	writeConfig("period_ms = 0\n");
	auto daemon = start({ binary("vdla-pipelined"), "--config", config_ });
	EXPECT_EQ(daemon->finish(), 1);
	EXPECT_NE(daemon->output.find("line 9: period_ms is 1 to 60000"), std::string::npos)
		<< daemon->output;
	writeConfig("colour = blue\n");
	daemon = start({ binary("vdla-pipelined"), "--config", config_ });
	EXPECT_EQ(daemon->finish(), 1);
	EXPECT_NE(daemon->output.find("line 9: unknown key 'colour'"), std::string::npos)
		<< daemon->output;
	EXPECT_EQ(::access(kSocket, F_OK), -1) << "a refused daemon left its socket";
}

TEST_F(PipelinedTest, TheDaemonKilledTellsItsApplicationsAndComesBack)
{
	ASSERT_NO_FATAL_FAILURE(startDaemon());
	uint32_t handle, buffer, index;
	ASSERT_EQ(pipelineOpen(fd(), kName, &handle), 0);
	ASSERT_EQ(channelDup(fd(), handle, 2), 0);
	ASSERT_TRUE(waitUntil([&] { return portTake(fd(), handle, 3, 0, &buffer, &index) == 0; },
			      5000));

	::kill(daemon_->pid, SIGKILL);
	EXPECT_EQ(daemon_->finish(), 128 + SIGKILL);
	drm_vdla_event_pipeline gone;
	ASSERT_TRUE(waitPipelineEvent(fd(), DRM_VDLA_EVENT_PIPELINE_GONE, 5000, &gone));
	EXPECT_EQ(gone.handle, handle);
	EXPECT_EQ(channelAttr(fd(), handle, 2, DRM_VDLA_CHANNEL_ATTR_OP_GET), ECANCELED);
	drm_vdla_bo_info info;
	EXPECT_EQ(boInfo(fd(), buffer, &info), 0) << "the result taken was lost with the daemon";
	auto [code, out] = ctl({ "status" });
	EXPECT_EQ(code, 1);
	EXPECT_NE(out.find("cannot reach vdla-pipelined at /tmp/pipelined-test.sock (is it running?)"),
		  std::string::npos)
		<< out;
	auto watched = ctl({ "watch", "1" });
	EXPECT_EQ(watched.first, 1) << watched.second;
	std::string leases;
	ASSERT_EQ(readFile(debugfsPath(node_.index(), "leases"), &leases), 0);
	EXPECT_EQ(leases.find("holder lease"), std::string::npos) << "the daemon's leases outlived it\n"
								  << leases;

	/* A restarted daemon builds the pipeline again; the old handle is only closed. */
	ASSERT_NO_FATAL_FAILURE(startDaemon());
	EXPECT_NE(status().find("references 0 exit_runs 0"), std::string::npos);
	EXPECT_EQ(pipelineClose(fd(), handle), 0);
	EXPECT_EQ(gemClose(fd(), buffer), 0);
	auto rewatched = ctl({ "watch", "1" });
	EXPECT_EQ(rewatched.first, 0) << rewatched.second;
}

} /* namespace */
} /* namespace guest */
