# skynet: fan-out 10 tree, leaves reply their offset, nodes reply the sum.

defmodule Bench.Skynet do
  import Bench.Shared

  def variants, do: nil
  def params, do: [l: nil]

  def run(_, %{l: l}) do
    unless power_of_10?(l), do: usage("skynet: l=#{l} is not a power of 10")
    main = self()
    t0 = now()
    spawn(fn -> skynet(main, 0, l) end)

    receive do
      sum ->
        wall = now() - t0
        want = div(l * (l - 1), 2)
        if sum != want, do: fail("skynet: sum #{sum}, want #{want}")
        {wall, []}
    end
  end

  defp power_of_10?(1), do: true
  defp power_of_10?(x) when x >= 10 and rem(x, 10) == 0, do: power_of_10?(div(x, 10))
  defp power_of_10?(_), do: false

  defp skynet(parent, off, 1), do: send(parent, off)

  defp skynet(parent, off, size) do
    me = self()
    sub = div(size, 10)
    Enum.each(0..9, fn i -> spawn(fn -> skynet(me, off + i * sub, sub) end) end)
    send(parent, collect_sum(10, 0))
  end
end
