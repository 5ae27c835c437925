// SPDX-License-Identifier: Apache-2.0
// Running Apache Curator programs (test/interop/*.java) from the interop tests: the class path of
// Debian's Curator jars and the test-time compile. Missing Java or Curator FAILS the test.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace zkcoord::test {

/// `classes` (where compile_curator_program puts its output) and the Curator, ZooKeeper and
/// dependency jars of Debian's libcurator-*-java packages.
inline std::string curator_classpath(const std::filesystem::path& classes) {
  std::string cp = classes.string();
  for (const char* jar :
       {"curator-client", "curator-framework", "curator-recipes", "zookeeper", "zookeeper-jute",
        "guava", "slf4j-api", "slf4j-nop", "netty-handler", "netty-common", "netty-buffer",
        "netty-transport", "netty-codec", "netty-resolver", "netty-transport-native-epoll",
        "netty-transport-native-unix-common", "curator-x-discovery", "jackson-core",
        "jackson-databind", "jackson-annotations"})
    cp += std::string(":/usr/share/java/") + jar + ".jar";
  return cp;
}

/// Compiles `source` into `classes`; fails the test (never skips) when the jars or javac are
/// missing or the compile fails.
inline void compile_curator_program(const std::filesystem::path& source,
                                    const std::filesystem::path& classes) {
  BOOST_REQUIRE_MESSAGE(std::filesystem::exists("/usr/share/java/curator-recipes.jar"),
                        "libcurator-recipes-java is missing: run scripts/install-deps");
  std::filesystem::create_directories(classes);
  const std::string javac = "javac -nowarn -d " + classes.string() + " -cp " +
                            curator_classpath(classes) + " " + source.string();
  BOOST_REQUIRE_MESSAGE(std::system(javac.c_str()) == 0, "javac failed: " << javac);
}

}  // namespace zkcoord::test
