# pingpong: A (which starts B) sends i to B, B replies i; R round trips, then A
# reports to main. With the option pairs=P, P such pairs share the R round trips
# (an even share each, the remainder to the first pairs) and main adds their
# reports up.

defmodule Bench.Pingpong do
  import Bench.Shared

  def variants, do: nil
  def params, do: [r: nil]
  def options, do: [:pairs]

  def run(_, %{r: r} = p) do
    pairs = Map.get(p, :pairs, 1)
    if pairs > r, do: usage("pingpong: pairs=#{pairs} is more than the round trips, r=#{r}")
    main = self()
    t0 = now()

    for k <- 0..(pairs - 1) do
      share = share(r, pairs, k)

      spawn(fn ->
        a = self()
        b = spawn(fn -> pong(a) end)
        {trips, bad} = ping(b, 0, share, 0)
        send(b, :stop)
        send(main, {:pingpong, trips, bad})
      end)
    end

    {trips, bad} = collect_tallies(:pingpong, pairs)

    wall = now() - t0

    if trips != r or bad != 0,
      do: fail("pingpong: #{trips} trips, #{bad} wrong replies, want #{r}")

    {wall, []}
  end

  defp pong(a) do
    receive do
      :stop ->
        :ok

      i ->
        send(a, i)
        pong(a)
    end
  end

  defp ping(_b, r, r, bad), do: {r, bad}

  defp ping(b, i, r, bad) do
    send(b, i)

    receive do
      ^i -> ping(b, i + 1, r, bad)
      _ -> ping(b, i + 1, r, bad + 1)
    end
  end
end
