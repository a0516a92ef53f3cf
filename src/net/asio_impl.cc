// Asio's implementation, compiled once for the whole program (ASIO_SEPARATE_COMPILATION is set
// for every target, so other files only see declarations).
#include <asio/impl/src.hpp>
#include <asio/ssl/impl/src.hpp>
