-- The FIFO multiplexer of scenarios/bench/mux_fifo.toml as a Luayats script (written for
-- atmsim's benchmark; run by run.py with the Luayats interpreter `luayats-bin`).
--
--   greedy g1, g2 (a cell every slot)          --\
--   on/off o1, o2 (geometric bursts, 30 %)     ----> FIFO multiplexer (1000 cells) --> sink
--
-- Luayats is slotted: one slot is one cell time of the multiplexer's output line, here an
-- OC-3c (149.76 Mb/s of cells: 353,207.5 cells/s). Every source sits on its own OC-3c line,
-- so it can emit at most one cell a slot. README.md beside this file lists what differs
-- from atmsim's model.
--
-- Parameters come from the environment (run.py sets them):
--   MUX_SLOTS  simulated slots (default 3532075: 10 s at the OC-3c cell rate)
--   MUX_SEED   seed of Luayats' random generator (default 1)
--   MUX_LINES  1: a delay line of 35 slots (0.1 ms, as atmsim's links) between each source
--              and the multiplexer and between the multiplexer and the sink (default 0:
--              sources hand their cells straight to the multiplexer)
-- Prints one line: "RESULT {json}".

-- Luayats' Lua front end loads its GUI toolkit and a readline binding even for a batch
-- run; with graphics left out of the build these stand-ins take their place. Nothing here
-- draws or reads a terminal.
package.preload["iuplua"] = function()
  iup = iup or { GetGlobal = function() return "batch" end, Message = function() end }
  return iup
end
package.preload["readline"] = function() readline = readline or {}; return readline end
package.preload["bit"] = function() bit = bit or {}; return bit end

require "yats.core"
require "yats.src"
require "yats.muxdmx"
require "yats.misc"

local SLOTS = tonumber(os.getenv("MUX_SLOTS") or "3532075")
local SEED = tonumber(os.getenv("MUX_SEED") or "1")
local LINES = os.getenv("MUX_LINES") == "1"
local DELAY = 35                 -- slots: 0.1 ms at 353,207.5 cells/s is 35.3 slots
local MEAN_BURST = 50            -- cells (atmsim: mean_cells = 50)
local LOAD = 0.3                 -- atmsim: load_bps = 44.928e6 of 149.76e6
-- mean silence in slots so that EX / (EX + ES) = LOAD: 50 * 0.7 / 0.3 = 116.67 slots
local MEAN_SILENCE = MEAN_BURST * (1 - LOAD) / LOAD

yats.sim:setRand(SEED)
yats.sim:resetTime()

-- where source i's cells go: the multiplexer's input i, or a line leading there
local function into_mux(i)
  if not LINES then return {"mux", "in" .. i} end
  yats.line{"line" .. i, delay = DELAY, out = {"mux", "in" .. i}}
  return {"line" .. i, "line"}
end

local src = {}
src[1] = yats.cbrsrc{"g1", delta = 1, vci = 1, out = into_mux(1)}
src[2] = yats.cbrsrc{"g2", delta = 1, vci = 2, out = into_mux(2)}
src[3] = yats.bssrc{"o1", ex = MEAN_BURST, es = MEAN_SILENCE, delta = 1, vci = 3, out = into_mux(3)}
src[4] = yats.bssrc{"o2", ex = MEAN_BURST, es = MEAN_SILENCE, delta = 1, vci = 4, out = into_mux(4)}
local mx
if LINES then
  mx = yats.mux{"mux", ninp = 4, buff = 1000, out = {"line_out", "line"}}
  yats.line{"line_out", delay = DELAY, out = {"sink", "sink"}}
else
  mx = yats.mux{"mux", ninp = 4, buff = 1000, out = {"sink", "sink"}}
end
local snk = yats.sink{"sink"}

yats.sim:connect()

local c0 = os.clock()
yats._sim:_run(SLOTS, SLOTS + 1)  -- the kernel's loop itself (sim:run adds the GUI's pause and step control)
local cpu = os.clock() - c0

local emitted = {}
local total = 0
for i = 1, 4 do
  emitted[i] = src[i]:getCounter()
  total = total + emitted[i]
end
local lost = mx:getLossTot()
local lost_in = {}
for i = 1, 4 do lost_in[i] = mx:getLoss(i) end
local delivered = snk:getCounter()
print(string.format(
  'RESULT {"slots": %d, "seed": %d, "lines": %s, "run_cpu_s": %.6f, "emitted": [%d, %d, %d, %d], "emitted_total": %d, ' ..
  '"lost": %d, "lost_per_input": [%d, %d, %d, %d], "delivered": %d, "queue_at_end": %d}',
  SLOTS, SEED, tostring(LINES), cpu, emitted[1], emitted[2], emitted[3], emitted[4], total,
  lost, lost_in[1], lost_in[2], lost_in[3], lost_in[4], delivered, mx:getQLen()))
