// Forward progress between blocks: while a block waits for others, its worker runs further blocks
// of the grid on fibers of its own (each with its own stack, shared memory and scratch).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cucpu::exec {

// The grid a worker's fibers take their blocks from.
class BlockSource {
public:
  virtual bool blocksLeft() const = 0; // some block of the grid has not been started
  virtual bool stopped() const = 0;    // the grid has faulted: waiting blocks end
  // Runs blocks of the grid until none is left to start or the grid stops; `memory` holds a
  // block's shared memory followed by its scratch.
  virtual void runBlocks(uint8_t *memory) = 0;

protected:
  ~BlockSource() = default;
};

// Runs `source.runBlocks(memory)` on the calling thread. While it runs, blockWaits() on this
// thread may start further fibers that run `source.runBlocks` with memory of their own
// (`memoryBytes`, aligned to `align`), and switches between them. Returns when every fiber has
// finished.
void runBlocksWithFibers(BlockSource &source, uint8_t *memory, size_t memoryBytes, size_t align);

// Called from a block function (through the runtime's services) when all of its block's threads
// have waited `rounds` rounds in a row at yield points (spin loops, nanosleep, mbarrier waits)
// without progress: they wait for other blocks or for the host. Lets the worker run other
// blocks meanwhile (another fiber: one waiting longer, or a block not yet started), else other
// threads. When the grid has stopped (a fault), ends the block as a fault would.
void blockWaits(uint32_t rounds);

} // namespace cucpu::exec
