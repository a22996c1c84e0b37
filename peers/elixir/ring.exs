# ring: P processes, process j forwards the token (minus one) to j+1 mod P;
# the one that gets 0 reports its index to main.

defmodule Bench.Ring do
  import Bench.Shared

  def variants, do: nil
  def params, do: [t: nil, p: nil]

  def run(_, %{t: t, p: np}) do
    if np < 1, do: usage("ring needs p >= 1")
    main = self()
    t0 = now()
    pids = for j <- 0..(np - 1)//1, do: spawn(fn -> ring_init(j, main) end)

    Enum.zip(pids, tl(pids) ++ [hd(pids)])
    |> Enum.each(fn {pid, next} -> send(pid, {:next, next}) end)

    send(hd(pids), t)

    receive do
      {:ring, idx} ->
        wall = now() - t0
        if idx != rem(t, np), do: fail("ring: process #{idx} got 0, want #{rem(t, np)}")
        {wall, []}
    end
  end

  defp ring_init(j, main) do
    receive do
      {:next, next} -> ring_loop(j, next, main)
    end
  end

  defp ring_loop(j, next, main) do
    receive do
      0 ->
        send(main, {:ring, j})

      v ->
        send(next, v - 1)
        ring_loop(j, next, main)
    end
  end
end
