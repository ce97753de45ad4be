# pt2ov_serve: the model server (`pt2ov serve`, src/serve/), a static library over libpt2ov's
# public API, linked into the command, the C++ tests and the fuzz target. REST on Boost.Beast
# (header-only, over Asio: an event loop holds the connections),
# gRPC on gRPC C++ with the protocol's grpc_predict_v2.proto compiled here by protoc and
# grpc_cpp_plugin; all from Debian 12's packages (scripts/install-deps.sh).
find_package(PkgConfig REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_program(PT2OV_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)

set(PT2OV_SERVE_PROTO "${CMAKE_CURRENT_SOURCE_DIR}/src/serve/proto/grpc_predict_v2.proto")
set(PT2OV_SERVE_GENERATED "${CMAKE_CURRENT_BINARY_DIR}/serve_proto")
set(PT2OV_SERVE_PROTO_SOURCES
    "${PT2OV_SERVE_GENERATED}/grpc_predict_v2.pb.cc" "${PT2OV_SERVE_GENERATED}/grpc_predict_v2.pb.h"
    "${PT2OV_SERVE_GENERATED}/grpc_predict_v2.grpc.pb.cc" "${PT2OV_SERVE_GENERATED}/grpc_predict_v2.grpc.pb.h")
add_custom_command(
    OUTPUT ${PT2OV_SERVE_PROTO_SOURCES}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${PT2OV_SERVE_GENERATED}"
    COMMAND protobuf::protoc --proto_path "${CMAKE_CURRENT_SOURCE_DIR}/src/serve/proto"
            --cpp_out "${PT2OV_SERVE_GENERATED}" --grpc_out "${PT2OV_SERVE_GENERATED}"
            --plugin=protoc-gen-grpc=${PT2OV_GRPC_CPP_PLUGIN} "${PT2OV_SERVE_PROTO}"
    DEPENDS "${PT2OV_SERVE_PROTO}"
    COMMENT "protoc: the Open Inference Protocol's grpc_predict_v2.proto")

file(GLOB PT2OV_SERVE_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/serve/*.cpp")
# Like the tools, the server uses the public API only (and the header-only bfloat16, text and
# JSON text helpers): refused at configure time otherwise.
file(GLOB PT2OV_SERVE_FILES "${CMAKE_CURRENT_SOURCE_DIR}/src/serve/*.cpp" "${CMAKE_CURRENT_SOURCE_DIR}/src/serve/*.h")
pt2ov_require_public_api("the server uses" "serve/|grpc_predict_v2" ${PT2OV_SERVE_FILES})
add_library(pt2ov_serve STATIC ${PT2OV_SERVE_SOURCES} ${PT2OV_SERVE_PROTO_SOURCES})
target_include_directories(pt2ov_serve PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/src" "${PT2OV_SERVE_GENERATED}")
target_link_libraries(pt2ov_serve
    PUBLIC pt2ov gRPC::grpc++ protobuf::libprotobuf nlohmann_json::nlohmann_json
    PRIVATE Boost::boost Threads::Threads fmt::fmt)
target_compile_definitions(pt2ov_serve PRIVATE PT2OV_VERSION="${PROJECT_VERSION}")
target_compile_options(pt2ov_serve PRIVATE -Wall -Wextra -Wno-unused-parameter)
