/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <vector>

namespace pipelined {

namespace {

std::string trim(const std::string &s)
{
	size_t begin = s.find_first_not_of(" \t");
	if (begin == std::string::npos)
		return "";
	return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

bool parseUnsigned(const std::string &text, unsigned long max, unsigned long *value)
{
	if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
	    text.size() > 10)
		return false;
	*value = std::stoul(text);
	return *value <= max;
}

std::vector<std::string> words(const std::string &text)
{
	std::istringstream in(text);
	std::vector<std::string> out;
	for (std::string word; in >> word;)
		out.push_back(word);
	return out;
}

/* Applies "@key = @value"; a reason if it is wrong. */
std::string apply(Config &config, const std::string &key, const std::string &value)
{
	unsigned long n;
	if (key == "device") {
		if (!parseUnsigned(value, 63, &n))
			return "device is an index, 0 to 63";
		config.device = unsigned(n);
	} else if (key == "pipeline") {
		if (value.empty() || value.size() > 31 ||
		    value.find_first_of(" \t") != std::string::npos)
			return "pipeline is a name of 1 to 31 visible characters";
		config.pipeline = value;
	} else if (key == "params") {
		std::vector<std::string> list = words(value);
		if (list.size() > config.params.size())
			return "params are at most 8 numbers";
		config.params = {};
		for (size_t i = 0; i < list.size(); i++) {
			if (!parseUnsigned(list[i], UINT32_MAX, &n))
				return "params are unsigned 32-bit numbers";
			config.params[i] = uint32_t(n);
		}
	} else if (key == "socket") {
		if (value.empty() || value[0] != '/' || value.size() >= 100)
			return "socket is an absolute path shorter than 100 characters";
		config.socket = value;
	} else if (key == "period_ms") {
		if (!parseUnsigned(value, 60000, &n) || !n)
			return "period_ms is 1 to 60000";
		config.periodMs = unsigned(n);
	} else if (key == "output_buffers") {
		if (!parseUnsigned(value, vdla::kPortBuffers, &n) || !n)
			return "output_buffers is 1 to 8";
		config.outputBuffers = unsigned(n);
	} else if (key == "scale") {
		if (!parseUnsigned(value, 127, &n) || !n)
			return "scale is 1 to 127";
		config.scale = int32_t(n);
	} else if (key == "shift") {
		if (!parseUnsigned(value, 7, &n))
			return "shift is 0 to 7";
		config.shift = uint32_t(n);
	} else if (key == "sram_partition") {
		size_t colon = value.find(':');
		if (value != "none" &&
		    (colon == std::string::npos || !colon ||
		     !parseUnsigned(value.substr(colon + 1), 1ul << 30, &n) || n < 4096))
			return "sram_partition is none or name:bytes (at least 4096)";
		config.sramPartition = value == "none" ? "" : value;
	} else if (key == "engine_reservation") {
		if (value != "none" && engineIndex(value) < 0)
			return "engine_reservation is none, bdma, conv, sdp, pdp, cdp or rubik";
		config.engineReservation = value == "none" ? "" : value;
	} else if (key == "exit") {
		config.exit = {};
		for (const std::string &action : words(value)) {
			if (action == "stop")
				config.exit.stopChannels = true;
			else if (action == "reset")
				config.exit.resetAttributes = true;
			else if (action == "notify")
				config.exit.notify = true;
			else if (action != "none")
				return "exit is a list of stop, reset and notify, or none";
		}
	} else {
		return "unknown key '" + key + "'";
	}
	return "";
}

} /* namespace */

int engineIndex(const std::string &name)
{
	static const char *const kNames[] = { "bdma", "conv", "sdp", "pdp", "cdp", "rubik" };
	for (int i = 0; i < 6; i++) {
		if (name == kNames[i])
			return i;
	}
	return -1;
}

vdla::Result<Config> readConfig(const std::string &path)
{
	std::ifstream in(path);
	if (!in)
		return vdla::Error(errno ? errno : ENOENT, "cannot read " + path);
	Config config;
	std::string line;
	for (unsigned number = 1; std::getline(in, line); number++) {
		std::string text = trim(line.substr(0, line.find('#')));
		if (text.empty())
			continue;
		size_t equals = text.find('=');
		if (equals == std::string::npos)
			return vdla::Error(EINVAL, path + ": line " + std::to_string(number) +
						   ": expected key = value");
		std::string reason =
			apply(config, trim(text.substr(0, equals)), trim(text.substr(equals + 1)));
		if (!reason.empty())
			return vdla::Error(EINVAL,
					   path + ": line " + std::to_string(number) + ": " + reason);
	}
	return config;
}

} /* namespace pipelined */
