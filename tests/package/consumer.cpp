// Runs the example policy through the installed pt2ov: reads the image and state as raw
// float32 files, writes the action the same way. Usage:
//   consumer MODEL.pt2 BATCH IMAGE.f32 STATE.f32 ACTION.f32
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace {

std::vector<float> read_floats(const std::string& path, size_t count) {
    std::vector<float> values(count);
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(count * sizeof(float)));
    if (!in) throw std::runtime_error("cannot read " + std::to_string(count) + " floats from " + path);
    return values;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 6) {
        std::cerr << "usage: consumer MODEL.pt2 BATCH IMAGE.f32 STATE.f32 ACTION.f32\n";
        return 2;
    }
    try {
        const int64_t batch = std::atoll(argv[2]);
        auto program = pt2ov::Program::load(argv[1]);
        auto image = read_floats(argv[3], static_cast<size_t>(batch) * 3 * 64 * 64);
        auto state = read_floats(argv[4], static_cast<size_t>(batch) * 16);
        const auto outputs = program.run({pt2ov::Tensor::view(pt2ov::DType::Float32, {batch, 3, 64, 64}, image.data()),
                                          pt2ov::Tensor::view(pt2ov::DType::Float32, {batch, 16}, state.data())});
        std::ofstream out(argv[5], std::ios::binary);
        out.write(static_cast<const char*>(outputs.at(0).data()), static_cast<std::streamsize>(outputs.at(0).byte_size()));
        std::cout << "pt2ov " << pt2ov::openvino_version() << ": " << outputs.size() << " outputs\n";
        return out ? 0 : 1;
    } catch (const pt2ov::Error& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}
