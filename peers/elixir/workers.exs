# workers: sum of count(i) for i in 1..=N; serial / master_slave / push /
# steal. All unbatched: one message per item.
#
# tuned=1 sets main's (the master's) mailbox off-heap before timing, where
# N replies pile up. n=50000 master_slave on the 2-core test machine: 150 ms
# plain, 126 ms tuned.

defmodule Bench.Workers do
  import Bench.Shared

  def variants, do: ["serial", "master_slave", "push", "steal"]
  def params, do: [w: nil, n: nil, tuned: 0]

  def run(variant, %{w: w, n: n} = p) do
    if w < 1, do: usage("workers needs w >= 1")
    want = serial_counts(1, n, 0)
    tune(p)
    main = self()

    {wall, got} =
      case variant do
        "serial" ->
          t0 = now()
          got = serial_counts(1, n, 0)
          {now() - t0, got}

        "master_slave" ->
          t0 = now()
          Enum.each(1..n//1, fn i -> spawn(fn -> send(main, {:count, count(i)}) end) end)
          got = collect_counts(n, 0)
          {now() - t0, got}

        "push" ->
          workers = List.to_tuple(for _ <- 1..w, do: spawn(fn -> push_worker(main) end))
          t0 = now()
          push_items(1, n, workers, w)
          got = collect_counts(n, 0)
          wall = now() - t0
          Enum.each(Tuple.to_list(workers), &send(&1, :stop))
          {wall, got}

        "steal" ->
          # Workers ask as soon as they start: their first requests may
          # already wait in main's mailbox when timing starts.
          workers = for _ <- 1..w, do: spawn(fn -> steal_worker(main) end)
          t0 = now()
          got = steal_master(1, n, 0, 0)
          wall = now() - t0
          Enum.each(workers, &send(&1, :stop))
          {wall, got}
      end

    if got != want, do: fail("workers #{variant}: sum #{got}, want #{want}")
    {wall, []}
  end

  defp serial_counts(i, n, acc) when i > n, do: acc
  defp serial_counts(i, n, acc), do: serial_counts(i + 1, n, acc + count(i))

  defp collect_counts(0, acc), do: acc

  defp collect_counts(k, acc) do
    receive do
      {:count, c} -> collect_counts(k - 1, acc + c)
    end
  end

  defp push_worker(main) do
    receive do
      {:item, i} ->
        send(main, {:count, count(i)})
        push_worker(main)

      :stop ->
        :ok
    end
  end

  defp push_items(i, n, _workers, _w) when i > n, do: :ok

  defp push_items(i, n, workers, w) do
    send(elem(workers, rem(i - 1, w)), {:item, i})
    push_items(i + 1, n, workers, w)
  end

  # An idle worker asks the master for work, computes, sends the count, asks
  # again.
  defp steal_worker(main) do
    send(main, {:want, self()})

    receive do
      {:item, i} ->
        send(main, {:count, count(i)})
        steal_worker(main)

      :stop ->
        :ok
    end
  end

  # The master hands out items 1..n on request and sums the counts; it is
  # done when all n counts are in. Requests that come after the last item
  # stay queued; the workers are stopped afterwards.
  defp steal_master(_next, n, got, acc) when got == n, do: acc

  defp steal_master(next, n, got, acc) do
    receive do
      {:want, pid} when next <= n ->
        send(pid, {:item, next})
        steal_master(next + 1, n, got, acc)

      {:count, c} ->
        steal_master(next, n, got + 1, acc + c)
    end
  end
end
