# million: spawn K processes blocked in receive, then wake each; each replies
# :done and ends. Extra figure: spawn_ms.
#
# tuned=1 sets main's mailbox off-heap before timing (see spawn.exs for the
# trap). k=1000000: no visible trap (7.6 s plain, 9.9 s tuned, one run each on
# the 2-core test machine), since the replies come in while main walks its pid
# list without allocating, so main hardly collects garbage while they pile up.

defmodule Bench.Million do
  import Bench.Shared

  def variants, do: nil
  def params, do: [k: nil, tuned: 0]

  def run(_, %{k: k} = p) do
    tune(p)
    main = self()
    t0 = now()

    pids =
      for _ <- 1..k//1 do
        spawn(fn ->
          receive do
            :go -> send(main, :done)
          end
        end)
      end

    t1 = now()
    Enum.each(pids, &send(&1, :go))
    got = collect_done(k, 0)
    wall = now() - t0
    if got != k, do: fail("million: #{got} replies, want #{k}")
    {wall, ["spawn_ms=#{ms(t1 - t0)}"]}
  end
end
