/** The daemon's Prometheus metrics: a registry per instance, bounded labels, clean durations. */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { METRIC_LABELS, PrometheusMetrics } from '../../src/daemon/metrics.js'

/** Every sample line of a metric family (`name{...} value` and `name value`), as `series → value`. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue
    const space = line.lastIndexOf(' ')
    out.set(line.slice(0, space), Number(line.slice(space + 1)))
  }
  return out
}

describe('PrometheusMetrics', () => {
  it('keeps a registry of its own: two instances in one process count apart', async () => {
    const a = new PrometheusMetrics()
    const b = new PrometheusMetrics()
    a.reconnect()
    a.reconnect()
    b.reconnect()
    expect(samples(await a.text(), 'panelbridge_app_reconnects_total').get('panelbridge_app_reconnects_total')).toBe(2)
    expect(samples(await b.text(), 'panelbridge_app_reconnects_total').get('panelbridge_app_reconnects_total')).toBe(1)
  })

  it('exports the process metrics by default, and not when told not to', async () => {
    expect(await new PrometheusMetrics().text()).toMatch(/^panelbridge_process_resident_memory_bytes \d+$/m)
    expect(await new PrometheusMetrics().text()).toMatch(/^panelbridge_nodejs_heap_size_used_bytes \d+$/m)
    expect(await new PrometheusMetrics({ processMetrics: false }).text()).not.toContain('process_')
  })

  it(`counts commands past ${METRIC_LABELS.maxCommands} distinct names under "${METRIC_LABELS.other}"`, async () => {
    const m = new PrometheusMetrics({ processMetrics: false, maxCommandLabels: 2 })
    for (const name of ['schedule', 'cue', 'replay_play', 'switchVideoIn', 'schedule']) m.commandDone(name, 'ok', 1)
    const totals = samples(await m.text(), 'panelbridge_commands_total')
    expect(totals).toEqual(
      new Map([
        ['panelbridge_commands_total{command="schedule",outcome="ok"}', 2],
        ['panelbridge_commands_total{command="cue",outcome="ok"}', 1],
        ['panelbridge_commands_total{command="other",outcome="ok"}', 2],
      ]),
    )
    const counts = samples(await m.text(), 'panelbridge_command_duration_seconds_count')
    expect([...counts.keys()]).toEqual([
      'panelbridge_command_duration_seconds_count{command="schedule"}',
      'panelbridge_command_duration_seconds_count{command="cue"}',
      'panelbridge_command_duration_seconds_count{command="other"}',
    ])
  })

  it('splits outcomes into ok and error, and counts each error once by its (capped) code', async () => {
    const m = new PrometheusMetrics({ processMetrics: false, maxErrorCodeLabels: 2 })
    m.commandDone('schedule', 'ok', 1)
    for (const code of ['TIMEOUT', 'TITLE_NOT_FOUND', 'A_CODE_THE_APP_MADE_UP', 'TIMEOUT'])
      m.commandDone('schedule', code, 1)
    const text = await m.text()
    expect(samples(text, 'panelbridge_commands_total')).toEqual(
      new Map([
        ['panelbridge_commands_total{command="schedule",outcome="ok"}', 1],
        ['panelbridge_commands_total{command="schedule",outcome="error"}', 4],
      ]),
    )
    expect(samples(text, 'panelbridge_command_errors_total')).toEqual(
      new Map([
        ['panelbridge_command_errors_total{code="TIMEOUT"}', 2],
        ['panelbridge_command_errors_total{code="TITLE_NOT_FOUND"}', 1],
        ['panelbridge_command_errors_total{code="other"}', 1],
      ]),
    )
  })

  it('records durations in seconds, a negative or non-finite one as 0', async () => {
    const m = new PrometheusMetrics({ processMetrics: false })
    m.eventToRequest(250)
    m.eventToRequest(-5)
    m.eventToRequest(Number.NaN)
    m.notificationToFeedback(Number.POSITIVE_INFINITY)
    const text = await m.text()
    expect(
      samples(text, 'panelbridge_event_to_request_seconds_sum').get('panelbridge_event_to_request_seconds_sum'),
    ).toBe(0.25)
    expect(
      samples(text, 'panelbridge_event_to_request_seconds_count').get('panelbridge_event_to_request_seconds_count'),
    ).toBe(3)
    expect(
      samples(text, 'panelbridge_notification_to_feedback_seconds_sum').get(
        'panelbridge_notification_to_feedback_seconds_sum',
      ),
    ).toBe(0)
  })

  it('starts with the link down and no surface open, and follows what it is told', async () => {
    const m = new PrometheusMetrics({ processMetrics: false })
    const value = async (name: string): Promise<number | undefined> => samples(await m.text(), name).get(name)
    expect(await value('panelbridge_app_link_up')).toBe(0)
    expect(await value('panelbridge_surfaces_open')).toBe(0)
    m.setLinkUp(true)
    m.setOpenSurfaces(2)
    m.surfaceOpened()
    m.surfaceOpened()
    m.surfaceFailed()
    expect(await value('panelbridge_app_link_up')).toBe(1)
    expect(await value('panelbridge_surfaces_open')).toBe(2)
    expect(await value('panelbridge_surface_opens_total')).toBe(2)
    expect(await value('panelbridge_surface_failures_total')).toBe(1)
  })

  describe('the press trace (panelbridge_press_stage_seconds)', () => {
    afterEach(() => vi.useRealTimers())

    it('times each stage from the one before, in order only, applied to the last write before the draw', async () => {
      vi.useFakeTimers({ toFake: ['performance'] })
      const m = new PrometheusMetrics({ processMetrics: false })
      const at = (ms: number): void => void vi.advanceTimersByTime(ms)
      // No press yet: nothing is traced.
      m.pressStep('notified')
      m.eventToRequest(2)
      m.pressStep('drawn') // the press's own pending badge, before the application spoke: not a stage
      at(10)
      m.pressStep('notified')
      at(2)
      m.pressStep('applied')
      at(8)
      m.pressStep('applied') // the layer state after the title list: the last write counts
      m.pressStep('notified') // a second signal: already past
      at(1)
      m.pressStep('drawn')
      at(3)
      m.pressStep('written')
      m.pressStep('written') // the press is done: nothing more
      m.commandDone('schedule', 'ok', 7)
      m.commandDone('schedule', 'ok', 9) // another command's reply: the press's was the first
      const text = await m.text()
      const sum = (stage: string): number | undefined =>
        samples(text, 'panelbridge_press_stage_seconds_sum').get(
          `panelbridge_press_stage_seconds_sum{stage="${stage}"}`,
        )
      const count = (stage: string): number | undefined =>
        samples(text, 'panelbridge_press_stage_seconds_count').get(
          `panelbridge_press_stage_seconds_count{stage="${stage}"}`,
        )
      const stages = ['sent', 'reply', 'notified', 'applied', 'drawn', 'written', 'light']
      expect(stages.map(count)).toEqual(stages.map(() => 1))
      const ms = stages.map((s) => Math.round((sum(s) ?? NaN) * 1e6) / 1e3)
      expect(ms).toEqual([2, 7, 10, 10, 1, 3, 26])
    })

    it('a step more than the bound after its press ends the trace unrecorded', async () => {
      vi.useFakeTimers({ toFake: ['performance'] })
      const m = new PrometheusMetrics({ processMetrics: false })
      m.eventToRequest(0)
      vi.advanceTimersByTime(5000)
      m.pressStep('notified')
      m.pressStep('applied')
      const counts = samples(await m.text(), 'panelbridge_press_stage_seconds_count')
      expect(counts.get('panelbridge_press_stage_seconds_count{stage="sent"}')).toBe(1)
      expect(counts.get('panelbridge_press_stage_seconds_count{stage="notified"}')).toBeUndefined()
    })
  })
})
