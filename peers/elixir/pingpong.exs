# pingpong: A (which starts B) sends i to B, B replies i; R round trips, then A
# reports to main.

defmodule Bench.Pingpong do
  import Bench.Shared

  def variants, do: nil
  def params, do: [r: nil]

  def run(_, %{r: r}) do
    main = self()
    t0 = now()

    spawn(fn ->
      a = self()
      b = spawn(fn -> pong(a) end)
      {trips, bad} = ping(b, 0, r, 0)
      send(b, :stop)
      send(main, {:pingpong, trips, bad})
    end)

    receive do
      {:pingpong, trips, bad} ->
        wall = now() - t0

        if trips != r or bad != 0,
          do: fail("pingpong: #{trips} trips, #{bad} wrong replies, want #{r}")

        {wall, []}
    end
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
