# chain: M relays; main sends N messages to the head, the last relay sends
# them back to main.

defmodule Bench.Chain do
  import Bench.Shared

  def variants, do: ["int", "list20"]
  def params, do: [m: nil, n: nil]

  def run(variant, %{m: m, n: n}) do
    list = Enum.to_list(1..20)
    t0 = now()
    head = Enum.reduce(1..m//1, self(), fn _, next -> spawn(fn -> relay(next) end) end)

    case variant do
      "int" ->
        Enum.each(0..(n - 1)//1, &send(head, &1))
        sum = collect_sum(n, 0)
        wall = now() - t0
        want = div(n * (n - 1), 2)
        if sum != want, do: fail("chain int: sum #{sum}, want #{want}")
        {wall, []}

      "list20" ->
        Enum.each(1..n//1, fn _ -> send(head, list) end)
        bad = collect_lists(n, 0)
        wall = now() - t0
        if bad != 0, do: fail("chain list20: #{bad} of #{n} lists do not sum to 210")
        {wall, []}
    end
  end

  def relay(next) do
    receive do
      msg ->
        send(next, msg)
        relay(next)
    end
  end

  defp collect_lists(0, bad), do: bad

  defp collect_lists(n, bad) do
    receive do
      list -> collect_lists(n - 1, if(Enum.sum(list) == 210, do: bad, else: bad + 1))
    end
  end
end
