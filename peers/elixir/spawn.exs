# spawn: K short-lived processes, each sends :done to main and ends.
#
# tuned=1 sets main's mailbox off-heap before timing. The trap it avoids: the
# replies pile up in main's mailbox while main keeps allocating (a closure per
# spawn), and with the default on-heap message queue each garbage collection of
# main copies the queued backlog, so the run goes quadratic. On the 2-core test
# machine: k=500000 34 s plain; k=1000000 2.2 s tuned, about 2 minutes plain.

defmodule Bench.Spawn do
  import Bench.Shared

  def variants, do: nil
  def params, do: [k: nil, tuned: 0]

  def run(_, %{k: k} = p) do
    tune(p)
    t0 = now()
    spawn_done(k, self())
    got = collect_done(k, 0)
    wall = now() - t0
    if got != k, do: fail("spawn: #{got} replies, want #{k}")
    {wall, []}
  end

  defp spawn_done(0, _main), do: :ok

  defp spawn_done(k, main) do
    spawn(fn -> send(main, :done) end)
    spawn_done(k - 1, main)
  end
end
