# call: a GenServer; a client process makes R GenServer.call(i) -> i + 1, then
# reports to main. With the option callers=K (1 <= K <= R), K client processes
# call the one server at once, sharing the R calls (an even share each, the
# remainder to the first clients), and main adds their reports up.

defmodule Bench.CallServer do
  use GenServer

  @impl true
  def init(:ok), do: {:ok, nil}

  @impl true
  def handle_call(i, _from, state), do: {:reply, i + 1, state}
end

defmodule Bench.Call do
  import Bench.Shared

  def variants, do: nil
  def params, do: [r: nil]
  def options, do: [:callers]

  def run(_, %{r: r} = p) do
    callers = Map.get(p, :callers, 1)

    if callers < 1 or callers > r,
      do: usage("call: callers=#{callers} must be at least 1 and at most the calls, r=#{r}")

    main = self()
    t0 = now()
    {:ok, server} = GenServer.start(Bench.CallServer, :ok)

    for k <- 0..(callers - 1) do
      share = share(r, callers, k)

      spawn(fn ->
        {trips, bad} = call_loop(server, 0, share, 0)
        send(main, {:call, trips, bad})
      end)
    end

    {trips, bad} = collect_tallies(:call, callers)

    wall = now() - t0

    if trips != r or bad != 0,
      do: fail("call: #{trips} calls, #{bad} wrong replies, want #{r}")

    {wall, []}
  end

  defp call_loop(_server, r, r, bad), do: {r, bad}

  defp call_loop(server, i, r, bad) do
    bad = if GenServer.call(server, i) == i + 1, do: bad, else: bad + 1
    call_loop(server, i + 1, r, bad)
  end
end
