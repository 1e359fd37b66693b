//===- test_main.cpp - doctest entry point for the host tests -------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
