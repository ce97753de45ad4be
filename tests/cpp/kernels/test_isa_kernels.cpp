// The ISA table (src/kernels/isa/, kernels/cpu_isa.h): every entry of every level this CPU runs,
// against a plain reference computed here in double (and so against each other), over row- and
// column-major operands with padded rows, alpha and beta, K = 0 and empty products; the choice
// of level and PT2OV_CPU_ISA's refusals.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_isa.h"
#include "kernels/gemm.h"
#include "pt2ov/error.h"

#ifdef PT2OV_WITH_TBB
#include <oneapi/tbb/task_arena.h>
#endif

namespace {

using namespace pt2ov::kernels;

// A level this build has kernels for and this CPU runs.
bool runs_here(CpuIsa level) { return built_for(level) && cpu_has(level); }

// Every level that runs here, each with its table: such a level whose object is missing fails
// here (the build puts the objects beside libpt2ov.so).
std::vector<const isa::IsaKernels*> tables_of_this_cpu() {
    std::vector<const isa::IsaKernels*> tables;
    for (CpuIsa level : kAllCpuIsas) {
        if (!runs_here(level)) continue;
        std::string why_not;
        const isa::IsaKernels* table = isa_kernels_for(level, &why_not);
        EXPECT_NE(table, nullptr) << cpu_isa_name(level) << ": " << why_not;
        if (table) tables.push_back(table);
    }
    return tables;
}

TEST(IsaKernels, EveryLevelThatRunsHereLoadsItsOwnTable) {
    for (CpuIsa level : kAllCpuIsas) {
        if (!runs_here(level)) continue;
        std::string why_not;
        const isa::IsaKernels* table = isa_kernels_for(level, &why_not);
        ASSERT_NE(table, nullptr) << cpu_isa_name(level) << ": " << why_not;
        EXPECT_EQ(std::string(table->isa), std::string(cpu_isa_name(level)));
        EXPECT_EQ(table->size, sizeof(isa::IsaKernels));
        EXPECT_NE(table->gemm_f32, nullptr);
        EXPECT_NE(table->gemm_f64, nullptr);
        for (auto map : {table->exp_f32, table->sigmoid_f32, table->tanh_f32, table->softmax_row_f32}) EXPECT_NE(map, nullptr);
        EXPECT_TRUE(table->multiply_f32 && table->add_f32 && table->sum_f32 && table->extremum_f32);
    }
    EXPECT_TRUE(cpu_has(CpuIsa::Baseline));
    EXPECT_TRUE(built_for(CpuIsa::Baseline));
    // isa.cmake builds the x86-64-v3 (AVX2, FMA) and x86-64-v4 (AVX-512) objects.
    EXPECT_TRUE(built_for(CpuIsa::X86_64_V3));
    EXPECT_TRUE(built_for(CpuIsa::X86_64_V4));
}

TEST(IsaKernels, UnsetVariableChoosesTheWidestLevelThatRunsHere) {
    CpuIsa widest = CpuIsa::Baseline;
    for (CpuIsa level : kAllCpuIsas) {
        if (runs_here(level)) widest = level;
    }
    EXPECT_EQ(choose_cpu_isa(nullptr), widest);
    EXPECT_EQ(choose_cpu_isa(""), widest);
    EXPECT_EQ(available_cpu_isas().back(), widest);
}

TEST(IsaKernels, VariableNamesEachLevelThatRunsHere) {
    for (CpuIsa level : kAllCpuIsas) {
        if (runs_here(level)) EXPECT_EQ(choose_cpu_isa(std::string(cpu_isa_name(level)).c_str()), level);
    }
}

void expect_refused(const char* value, const std::string& words) {
    try {
        choose_cpu_isa(value);
        ADD_FAILURE() << "PT2OV_CPU_ISA=" << value << " was accepted";
    } catch (const pt2ov::Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(std::string("PT2OV_CPU_ISA=") + value), std::string::npos) << message;
        EXPECT_NE(message.find(words), std::string::npos) << message;
    }
}

TEST(IsaKernels, VariableRefusesAValueThatNamesNoLevel) {
    std::string built;
    for (CpuIsa level : kAllCpuIsas) {
        if (built_for(level)) built += (built.empty() ? "" : ", ") + std::string(cpu_isa_name(level));
    }
    for (const char* junk : {"avx2", "x86-64-v5", "Baseline", " baseline", "x86-64-v3,x86-64-v4", "native"}) {
        expect_refused(junk, "use one of " + built + ",");
    }
}

TEST(IsaKernels, VariableRefusesALevelThisBuildLacks) {
    bool lacks_one = false;
    for (CpuIsa level : kAllCpuIsas) {
        if (built_for(level)) continue;
        lacks_one = true;
        expect_refused(std::string(cpu_isa_name(level)).c_str(), "this build of pt2ov has no");
    }
    if (!lacks_one) GTEST_SKIP() << "this build has every level";
}

TEST(IsaKernels, VariableRefusesALevelTheCpuLacks) {
    bool lacks_one = false;
    for (CpuIsa level : kAllCpuIsas) {
        if (!built_for(level) || cpu_has(level)) continue;
        lacks_one = true;
        expect_refused(std::string(cpu_isa_name(level)).c_str(), "this CPU lacks");
    }
    if (!lacks_one) GTEST_SKIP() << "this CPU has every level pt2ov is built for";
}

// ---- The table's GEMM ------------------------------------------------------------------------------------

// A [rows, cols] matrix stored row-major or column-major with `pad` unused elements after each
// row (or column), so the outer stride is never the extent.
template <typename T>
struct Stored {
    int64_t rows = 0, cols = 0;
    bool row_major = true;
    std::vector<T> data;
    int64_t outer() const { return (row_major ? cols : rows) + 3; }
    int64_t row_stride() const { return row_major ? outer() : 1; }
    int64_t column_stride() const { return row_major ? 1 : outer(); }
    T& at(int64_t i, int64_t j) { return data[static_cast<size_t>(i * row_stride() + j * column_stride())]; }
    T at(int64_t i, int64_t j) const { return data[static_cast<size_t>(i * row_stride() + j * column_stride())]; }
};

template <typename T>
Stored<T> random_matrix(int64_t rows, int64_t cols, bool row_major, std::mt19937& rng) {
    Stored<T> s{rows, cols, row_major, {}};
    // The padding holds NaN: an entry that reads it gives NaN.
    s.data.assign(static_cast<size_t>((row_major ? rows : cols) * s.outer()), std::numeric_limits<T>::quiet_NaN());
    std::uniform_real_distribution<double> value(-1, 1);
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) s.at(i, j) = static_cast<T>(value(rng));
    }
    return s;
}

template <typename T>
void gemm_through(const isa::IsaKernels& table, int64_t m, int64_t n, int64_t k, T alpha, const Stored<T>& a,
                  const Stored<T>& b, T beta, Stored<T>& c) {
    if constexpr (std::is_same_v<T, float>) {
        table.gemm_f32(m, n, k, alpha, a.data.data(), a.row_stride(), a.column_stride(), b.data.data(), b.row_stride(),
                       b.column_stride(), beta, c.data.data(), c.row_stride(), c.column_stride());
    } else {
        table.gemm_f64(m, n, k, alpha, a.data.data(), a.row_stride(), a.column_stride(), b.data.data(), b.row_stride(),
                       b.column_stride(), beta, c.data.data(), c.row_stride(), c.column_stride());
    }
}

template <typename T>
void check_gemm(const isa::IsaKernels& table, int64_t m, int64_t n, int64_t k, T alpha, T beta, bool a_rows,
                bool b_rows, bool c_rows, std::mt19937& rng) {
    SCOPED_TRACE(std::string(table.isa) + " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" +
                 std::to_string(k) + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
                 " layouts a/b/c row-major=" + std::to_string(a_rows) + std::to_string(b_rows) + std::to_string(c_rows));
    const Stored<T> a = random_matrix<T>(m, k, a_rows, rng), b = random_matrix<T>(k, n, b_rows, rng);
    Stored<T> c = random_matrix<T>(m, n, c_rows, rng);
    // beta == 0 must not read c: NaN there stays out of the result.
    if (beta == T(0) && m > 0 && n > 0) c.at(0, 0) = std::numeric_limits<T>::quiet_NaN();
    const Stored<T> c_before = c;
    gemm_through(table, m, n, k, alpha, a, b, beta, c);
    const double eps = std::numeric_limits<T>::epsilon();
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0, magnitude = 0;
            for (int64_t p = 0; p < k; ++p) {
                sum += double(a.at(i, p)) * double(b.at(p, j));
                magnitude += std::abs(double(a.at(i, p)) * double(b.at(p, j)));
            }
            const double addend = beta == T(0) ? 0.0 : double(beta) * double(c_before.at(i, j));
            const double want = double(alpha) * sum + addend;
            // The rounding bound of a sum of k products in T, scaled: gamma_(k+2) * (|alpha| |a||b| + |beta c|).
            const double bound = 2 * (k + 2) * eps * (std::abs(double(alpha)) * magnitude + std::abs(addend)) + 1e-30;
            ASSERT_NEAR(double(c.at(i, j)), want, bound) << "at (" << i << ", " << j << ")";
        }
    }
    // The padding between rows is never written.
    for (size_t e = 0; e < c.data.size(); ++e) {
        const int64_t outer_index = static_cast<int64_t>(e) / c.outer(), inner = static_cast<int64_t>(e) % c.outer();
        if (inner >= (c_rows ? n : m)) {
            ASSERT_TRUE(std::isnan(c.data[e])) << "padding element " << e << " (outer " << outer_index << ") written";
        }
    }
}

template <typename T>
void check_gemm_everywhere() {
    std::mt19937 rng(7);
    struct Shape {
        int64_t m, n, k;
    };
    const Shape shapes[] = {{37, 29, 53}, {1, 40, 17}, {40, 1, 17}, {23, 19, 1}, {5, 7, 0}, {0, 6, 4}, {6, 0, 4},
                            {3, 2, 2},   {130, 70, 260}};
    struct Terms {
        T alpha, beta;
    };
    const Terms terms[] = {{T(1), T(0)}, {T(0.5), T(0)}, {T(1), T(1)}, {T(-2), T(0.25)}, {T(0), T(3)}};
    for (const isa::IsaKernels* table : tables_of_this_cpu()) {
        for (const Shape& s : shapes) {
            for (const Terms& t : terms) {
                for (int layout = 0; layout < 8; ++layout) {
                    check_gemm<T>(*table, s.m, s.n, s.k, t.alpha, t.beta, layout & 1, layout & 2, layout & 4, rng);
                    if (::testing::Test::HasFatalFailure()) return;
                }
            }
        }
    }
}

TEST(IsaKernels, GemmF32MatchesAPlainProductOnEveryLevel) { check_gemm_everywhere<float>(); }
TEST(IsaKernels, GemmF64MatchesAPlainProductOnEveryLevel) { check_gemm_everywhere<double>(); }

// The levels agree with the baseline within the same rounding bound (each is checked against the
// reference above); here one big product, every level against the baseline, element by element.
TEST(IsaKernels, GemmF32OfEveryLevelAgreesWithTheBaseline) {
    std::mt19937 rng(11);
    const int64_t m = 96, n = 80, k = 300;
    const Stored<float> a = random_matrix<float>(m, k, true, rng), b = random_matrix<float>(k, n, false, rng);
    const Stored<float> c0 = random_matrix<float>(m, n, true, rng);
    Stored<float> baseline = c0;
    gemm_through(*isa_kernels_for(CpuIsa::Baseline), m, n, k, 1.5f, a, b, 0.5f, baseline);
    for (const isa::IsaKernels* table : tables_of_this_cpu()) {
        Stored<float> c = c0;
        gemm_through(*table, m, n, k, 1.5f, a, b, 0.5f, c);
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                double magnitude = 0;
                for (int64_t p = 0; p < k; ++p) magnitude += std::abs(double(a.at(i, p)) * double(b.at(p, j)));
                const double bound = 4 * (k + 2) * std::numeric_limits<float>::epsilon() * (1.5 * magnitude + 1);
                ASSERT_NEAR(c.at(i, j), baseline.at(i, j), bound) << table->isa << " at (" << i << ", " << j << ")";
            }
        }
    }
}

// ---- kernels::gemm_f32 / gemm_f64: any strides, blocks split over threads -------------------

// A [rows, cols] operand over `storage` with arbitrary element strides (transposed, padded,
// broadcast with stride 0).
template <typename T>
struct View {
    int64_t rows, cols, row_stride, column_stride;
    std::vector<T> storage;
    T at(int64_t i, int64_t j) const { return storage[static_cast<size_t>(i * row_stride + j * column_stride)]; }
    T& at(int64_t i, int64_t j) { return storage[static_cast<size_t>(i * row_stride + j * column_stride)]; }
};

enum class Layout { RowMajor, ColumnMajor, Strided, BroadcastRows };

template <typename T>
View<T> make_view(int64_t rows, int64_t cols, Layout layout, std::mt19937& rng) {
    View<T> v{rows, cols, 0, 0, {}};
    int64_t span = 0;
    switch (layout) {
        case Layout::RowMajor: v.row_stride = cols + 1; v.column_stride = 1; span = rows * (cols + 1); break;
        case Layout::ColumnMajor: v.row_stride = 1; v.column_stride = rows + 2; span = cols * (rows + 2); break;
        // every other element of a row-major buffer: no unit stride (copied first)
        case Layout::Strided: v.row_stride = 2 * cols + 1; v.column_stride = 2; span = rows * (2 * cols + 1); break;
        // one row repeated (an expand): row stride 0
        case Layout::BroadcastRows: v.row_stride = 0; v.column_stride = 1; span = cols; break;
    }
    v.storage.assign(static_cast<size_t>(std::max<int64_t>(span, 1)), std::numeric_limits<T>::quiet_NaN());
    std::uniform_real_distribution<double> value(-1, 1);
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) v.at(i, j) = static_cast<T>(value(rng));
    }
    return v;
}

template <typename T>
void wrapper_gemm(const isa::IsaKernels& table, int64_t m, int64_t n, int64_t k, T alpha, const View<T>& a,
                  const View<T>& b, T beta, View<T>& c) {
    if constexpr (std::is_same_v<T, float>) {
        gemm_f32(m, n, k, alpha, a.storage.data(), a.row_stride, a.column_stride, b.storage.data(), b.row_stride,
                 b.column_stride, beta, c.storage.data(), c.row_stride, c.column_stride, table);
    } else {
        gemm_f64(m, n, k, alpha, a.storage.data(), a.row_stride, a.column_stride, b.storage.data(), b.row_stride,
                 b.column_stride, beta, c.storage.data(), c.row_stride, c.column_stride, table);
    }
}

template <typename T>
void check_wrapper(const isa::IsaKernels& table, int64_t m, int64_t n, int64_t k, T alpha, T beta, Layout a_layout,
                   Layout b_layout, Layout c_layout, std::mt19937& rng) {
    SCOPED_TRACE(std::string(table.isa) + " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" +
                 std::to_string(k) + " beta=" + std::to_string(beta) + " layouts " +
                 std::to_string(int(a_layout)) + std::to_string(int(b_layout)) + std::to_string(int(c_layout)));
    const View<T> a = make_view<T>(m, k, a_layout, rng), b = make_view<T>(k, n, b_layout, rng);
    View<T> c = make_view<T>(m, n, c_layout, rng);
    if (beta == T(0) && m > 0 && n > 0) c.at(m - 1, n - 1) = std::numeric_limits<T>::infinity();
    const View<T> c_before = c;
    wrapper_gemm(table, m, n, k, alpha, a, b, beta, c);
    const double eps = std::numeric_limits<T>::epsilon();
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0, magnitude = 0;
            for (int64_t p = 0; p < k; ++p) {
                sum += double(a.at(i, p)) * double(b.at(p, j));
                magnitude += std::abs(double(a.at(i, p)) * double(b.at(p, j)));
            }
            const double addend = beta == T(0) ? 0.0 : double(beta) * double(c_before.at(i, j));
            const double bound = 2 * (k + 2) * eps * (std::abs(double(alpha)) * magnitude + std::abs(addend)) + 1e-30;
            ASSERT_NEAR(double(c.at(i, j)), double(alpha) * sum + addend, bound) << "at (" << i << ", " << j << ")";
        }
    }
}

template <typename T>
void check_wrapper_everywhere() {
    std::mt19937 rng(13);
    struct Shape {
        int64_t m, n, k;
    };
    // Big enough to be cut into blocks of rows and of columns and split over threads (the first
    // two), few rows and many columns, a single row, K = 0, empty.
    const Shape shapes[] = {{300, 200, 100}, {20, 700, 64}, {1, 90, 33}, {7, 5, 0}, {0, 9, 3}, {9, 0, 3}};
    const Layout c_layouts[] = {Layout::RowMajor, Layout::ColumnMajor, Layout::Strided};
    for (const isa::IsaKernels* table : tables_of_this_cpu()) {
        for (const Shape& s : shapes) {
            for (Layout a_layout : {Layout::RowMajor, Layout::ColumnMajor, Layout::Strided, Layout::BroadcastRows}) {
                for (Layout b_layout : {Layout::RowMajor, Layout::ColumnMajor, Layout::Strided}) {
                    for (Layout c_layout : c_layouts) {
                        check_wrapper<T>(*table, s.m, s.n, s.k, T(1), T(0), a_layout, b_layout, c_layout, rng);
                        check_wrapper<T>(*table, s.m, s.n, s.k, T(-0.5), T(2), a_layout, b_layout, c_layout, rng);
                        if (::testing::Test::HasFatalFailure()) return;
                    }
                }
            }
        }
    }
}

TEST(Gemm, F32OfAnyStridesMatchesAPlainProductOnEveryLevel) { check_wrapper_everywhere<float>(); }
TEST(Gemm, F64OfAnyStridesMatchesAPlainProductOnEveryLevel) { check_wrapper_everywhere<double>(); }

#ifdef PT2OV_WITH_TBB
// The blocks are fixed by the shape: one thread and two give the same bits, on every level.
TEST(Gemm, ResultDoesNotDependOnTheNumberOfThreads) {
    std::mt19937 rng(17);
    for (const isa::IsaKernels* table : tables_of_this_cpu()) {
        for (auto [m, n, k] : {std::array<int64_t, 3>{512, 300, 256}, {40, 1024, 256}}) {
            const View<float> a = make_view<float>(m, k, Layout::RowMajor, rng);
            const View<float> b = make_view<float>(k, n, Layout::ColumnMajor, rng);
            const View<float> c0 = make_view<float>(m, n, Layout::RowMajor, rng);
            View<float> one = c0, two = c0;
            oneapi::tbb::task_arena(1).execute([&] { wrapper_gemm(*table, m, n, k, 1.0f, a, b, 0.5f, one); });
            oneapi::tbb::task_arena(2).execute([&] { wrapper_gemm(*table, m, n, k, 1.0f, a, b, 0.5f, two); });
            // Bits compared (the padding between rows holds NaN).
            ASSERT_EQ(std::memcmp(one.storage.data(), two.storage.data(), one.storage.size() * sizeof(float)), 0)
                << table->isa << " m=" << m << " n=" << n;
        }
    }
}
#endif

}  // namespace
