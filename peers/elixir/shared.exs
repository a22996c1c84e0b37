# Definitions every workload of the Elixir peer shares (contract: docs/workloads.md,
# "Shared definitions"), loaded by bench.exs before the workload's own file.

defmodule Bench.Shared do
  import Bitwise

  @mask64 0xFFFF_FFFF_FFFF_FFFF

  def usage(msg) do
    IO.puts(:stderr, "bench.exs: " <> msg)
    IO.puts(:stderr, "usage: elixir bench.exs WORKLOAD VARIANT|- k=v ...")
    System.halt(2)
  end

  def fail(msg) do
    IO.puts(:stderr, "ERROR " <> msg)
    System.halt(1)
  end

  def now, do: System.monotonic_time()

  def ms(native) do
    ns = System.convert_time_unit(native, :native, :nanosecond)
    :erlang.float_to_binary(ns / 1.0e6, decimals: 3)
  end

  # tuned=1: main's mailbox off the process heap (see the workloads that take `tuned`).
  def tune(%{tuned: 1}), do: Process.flag(:message_queue_data, :off_heap)
  def tune(_), do: :ok

  # xorshift64*: returns {value, new_state}
  def next(s) do
    s = bxor(s, s >>> 12)
    s = bxor(s, s <<< 25 &&& @mask64)
    s = bxor(s, s >>> 27)
    {s * 0x2545F4914F6CDD1D &&& @mask64, s}
  end

  # uniform(lo..=hi): returns {value, new_state}
  def uniform(lo, hi, s) do
    {x, s} = next(s)
    {lo + rem(x >>> 33, hi - lo + 1), s}
  end

  # n ints uniform in 1..=1000, seed 42, as a list in generation order
  def random_ints(n), do: random_ints(n, 42, [])
  defp random_ints(0, _s, acc), do: :lists.reverse(acc)

  defp random_ints(n, s, acc) do
    {x, s} = uniform(1, 1000, s)
    random_ints(n - 1, s, [x | acc])
  end

  # prime factor count with multiplicity
  def count(n), do: count(n, 2, 0)
  defp count(n, _d, c) when n <= 1, do: c
  defp count(n, d, c) when d * d > n, do: c + 1
  defp count(n, d, c) when rem(n, d) == 0, do: count(div(n, d), d, c + 1)
  defp count(n, d, c), do: count(n, d + 1, c)

  # receive `n` messages, summing them
  def collect_sum(0, acc), do: acc

  def collect_sum(n, acc) do
    receive do
      x -> collect_sum(n - 1, acc + x)
    end
  end

  # part k's share of `total` split into `parts`: an even share each, the
  # remainder to the first parts
  def share(total, parts, k), do: div(total, parts) + if(k < rem(total, parts), do: 1, else: 0)

  # receive `n` {tag, trips, bad} reports; returns their sums {trips, bad}
  def collect_tallies(tag, n) do
    Enum.reduce(1..n, {0, 0}, fn _, {t, b} ->
      receive do
        {^tag, trips, bad} -> {t + trips, b + bad}
      end
    end)
  end

  # receive `k` :done messages; returns how many came
  def collect_done(k, got) when got == k, do: got

  def collect_done(k, got) do
    receive do
      :done -> collect_done(k, got + 1)
    end
  end
end
