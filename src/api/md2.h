// MD2 (RFC 1319) and HMAC-MD2, for the CUDA runtime's integrity check of the driver.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace cucpu::api {

using Md2Digest = std::array<uint8_t, 16>;

Md2Digest md2(const uint8_t *data, size_t size);

// HMAC with MD2's 16-byte block: MD2((key ^ 0x5c..) || MD2((key ^ 0x36..) || message)).
Md2Digest hmacMd2(const uint8_t (&key)[16], const uint8_t *message, size_t size);

} // namespace cucpu::api
