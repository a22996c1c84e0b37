# parsum: sum R ints in chunks of 100, REPS times: serial / spawn / pool.

defmodule Bench.Parsum do
  import Bench.Shared

  def variants, do: ["serial", "spawn", "pool"]
  def params, do: [r: nil, reps: nil]

  def run(variant, %{r: r, reps: reps}) do
    data = random_ints(r)
    want = Enum.sum(data)
    chunks = Enum.chunk_every(data, 100)
    nchunks = length(chunks)
    main = self()

    {wall, sums} =
      case variant do
        "serial" ->
          t0 = now()
          sums = for _ <- 1..reps//1, do: Enum.sum(data)
          {now() - t0, sums}

        "spawn" ->
          t0 = now()

          sums =
            for _ <- 1..reps//1 do
              Enum.each(chunks, fn c -> spawn(fn -> send(main, {:psum, Enum.sum(c)}) end) end)
              collect_psums(nchunks, 0)
            end

          {now() - t0, sums}

        "pool" ->
          pool = for c <- chunks, do: spawn(fn -> pool_worker(c, main) end)
          t0 = now()

          sums =
            for _ <- 1..reps//1 do
              Enum.each(pool, &send(&1, :go))
              collect_psums(nchunks, 0)
            end

          wall = now() - t0
          Enum.each(pool, &send(&1, :stop))
          {wall, sums}
      end

    Enum.with_index(sums)
    |> Enum.each(fn {s, i} ->
      if s != want, do: fail("parsum #{variant}: rep #{i} sum #{s}, want #{want}")
    end)

    if length(sums) != reps, do: fail("parsum #{variant}: #{length(sums)} reps, want #{reps}")
    {wall, []}
  end

  defp collect_psums(0, acc), do: acc

  defp collect_psums(k, acc) do
    receive do
      {:psum, s} -> collect_psums(k - 1, acc + s)
    end
  end

  defp pool_worker(chunk, main) do
    receive do
      :go ->
        send(main, {:psum, Enum.sum(chunk)})
        pool_worker(chunk, main)

      :stop ->
        :ok
    end
  end
end
