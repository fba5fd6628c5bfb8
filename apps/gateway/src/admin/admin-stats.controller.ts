import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { DashboardStats, DashboardStatsView, STATS_DEFAULT_HOURS, STATS_MAX_HOURS } from '@dockbridge/pipeline';
import { OperatorRoleGuard } from '../auth/operator-role.guard';
import { BadInput } from '../http-error.filter';
import { ApiErrors } from '../openapi/error.schemas';
import { DashboardStatsSchema } from '../openapi/stats.schemas';

/** The console's dashboard figures, from the audit store (every replica answers the same) and the queues. */
@ApiTags('admin')
@ApiBearerAuth()
@ApiErrors([401, 'Missing or wrong admin token'])
@Controller('v1/admin')
@UseGuards(OperatorRoleGuard)
export class AdminStatsController {
  constructor(private readonly stats: DashboardStats) {}

  @Get('stats')
  @ApiOperation({
    summary:
      'Messages received, delivered and failed per bucket over the last hours, delivery latency percentiles, failures by class, queue depth and age, and every partner with its counts and when it last sent anything',
  })
  @ApiQuery({
    name: 'hours',
    required: false,
    type: 'integer',
    description: `The window, 1–${STATS_MAX_HOURS} hours (default ${STATS_DEFAULT_HOURS})`,
  })
  @ApiOkResponse({ type: DashboardStatsSchema })
  @ApiErrors([400, `hours is not a whole number from 1 to ${STATS_MAX_HOURS}`])
  read(@Query('hours') hours?: string): Promise<DashboardStatsView> {
    const n = hours === undefined ? STATS_DEFAULT_HOURS : Number(hours);
    if (!/^\d+$/.test(hours ?? '6') || n < 1 || n > STATS_MAX_HOURS) {
      throw new BadInput('Invalid stats window', [`hours must be a whole number from 1 to ${STATS_MAX_HOURS}`]);
    }
    return this.stats.read(n);
  }
}
