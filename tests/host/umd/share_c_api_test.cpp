/* SPDX-License-Identifier: MIT */
/* Runs the C API checks of share_c_api.c, which is compiled as C. */
#include <gtest/gtest.h>

extern "C" {
const char *share_c_api_lists(void);
const char *share_c_api_sync_and_ipc(void);
}

namespace {

TEST(ShareCApi, ListsReconcileAndReportInC)
{
	const char *failure = share_c_api_lists();
	EXPECT_EQ(failure, nullptr) << failure;
}

TEST(ShareCApi, SyncListsCrossProcessesInC)
{
	const char *failure = share_c_api_sync_and_ipc();
	EXPECT_EQ(failure, nullptr) << failure;
}

} /* namespace */
