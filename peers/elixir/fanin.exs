# fanin: S senders each send N/S ones to one receiver, which counts to N.
#
# tuned=1 spawns the receiver with message_queue_data: :off_heap: its mailbox
# takes the backlog of S busy senders, which every garbage collection of an
# on-heap queue copies. n=10000000 on the 2-core test machine: 5.4 s plain,
# 3.3 s tuned.

defmodule Bench.Fanin do
  import Bench.Shared

  def variants, do: nil
  def params, do: [s: nil, n: nil, tuned: 0]

  def run(_, %{s: s, n: n} = p) do
    if s < 1 or rem(n, s) != 0, do: usage("fanin: n=#{n} must be a multiple of s=#{s} >= 1")
    main = self()
    opts = if p.tuned == 1, do: [message_queue_data: :off_heap], else: []
    t0 = now()
    recv = :erlang.spawn_opt(fn -> fanin_recv(n, 0, 0, main) end, opts)
    per = div(n, s)
    Enum.each(1..s//1, fn _ -> spawn(fn -> fanin_send(recv, per) end) end)

    receive do
      {:fanin, count, sum} ->
        wall = now() - t0
        if count != n or sum != n, do: fail("fanin: count #{count} sum #{sum}, want #{n}")
        {wall, []}
    end
  end

  defp fanin_recv(n, count, sum, main) when count == n, do: send(main, {:fanin, count, sum})

  defp fanin_recv(n, count, sum, main) do
    receive do
      x -> fanin_recv(n, count + 1, sum + x, main)
    end
  end

  defp fanin_send(_recv, 0), do: :ok

  defp fanin_send(recv, k) do
    send(recv, 1)
    fanin_send(recv, k - 1)
  end
end
