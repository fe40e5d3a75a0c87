/** Sizes the page draws the chart with; the layout reserves the same. Shared by the server and the page. */
export const METRICS = {
  nodeHeight: 32,
  invokeHeight: 44,
  nodeMinWidth: 76,
  /** 12 px sans, as `.node .name` (with room to spare). */
  nodeCharWidth: 7.6,
  /** 11 px mono, as `.edge .label`. */
  labelCharWidth: 6.7,
  labelLineHeight: 14,
  compoundHeader: 28,
  maxLabelLines: 3,
  /** A closed phase at the phase level: title, description, and its counts or what it is doing now. */
  phaseWidth: 280,
  phaseHeight: 66,
  /** 13 px mono, as `.level-top .edge .label`: the phase-level arrows' guards. */
  phaseLabelCharWidth: 7.9,
  phaseLabelLineHeight: 17,
  phaseMaxLabelLines: 4,
} as const;
